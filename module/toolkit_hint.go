package module

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// openFailure finds NVRTC's "cannot open source file" errors in a log.
var openFailure = regexp.MustCompile(`(?:cannot|could not) open source file "([^"]+)"`)

// toolkitHint says, for a compile whose log says NVRTC could not open a
// header, where Compile looked for the CUDA toolkit's headers and how to
// point it at them; "" for any other failure.
func toolkitHint(log string, o *Options) string {
	m := openFailure.FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	header := m[1]
	if _, held := o.Headers[header]; held {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q is not in Options.Headers, Options.IncludePaths", header)
	switch {
	case o.NoToolkitIncludes:
		b.WriteString(", and Options.NoToolkitIncludes leaves the CUDA toolkit's headers out")
	case o.toolkit != nil:
		fmt.Fprintf(&b, " or the toolkit's include directories %v", o.toolkit.dirs)
	default:
		fmt.Fprintf(&b, ", and no CUDA toolkit headers were found: looked in %s", strings.Join(toolkitPlaces(), ", "))
	}
	fmt.Fprintf(&b, "; set %s to the include directory that holds it (or add it to Options.IncludePaths, or give it in Options.Headers)", ToolkitIncludeEnv)
	return b.String()
}

// toolkitPlaces lists where ToolkitIncludePaths looks, with what it found
// there.
func toolkitPlaces() []string {
	if v := os.Getenv(ToolkitIncludeEnv); v != "" {
		return []string{fmt.Sprintf("$%s (%q, which names no directory that exists), alone", ToolkitIncludeEnv, v)}
	}
	places := []string{fmt.Sprintf("$%s (unset)", ToolkitIncludeEnv)}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := os.Getenv(env); v != "" {
			places = append(places, fmt.Sprintf("$%s/include (%s, %s)", env, filepath.Join(v, "include"), dirState(filepath.Join(v, "include"))))
		} else {
			places = append(places, fmt.Sprintf("$%s/include (unset)", env))
		}
	}
	return append(places, fmt.Sprintf("/usr/local/cuda/include (%s)", dirState("/usr/local/cuda/include")),
		"the include directories of NVIDIA's pip wheels (site-packages/nvidia/..., none found)")
}

func dirState(d string) string {
	if isDir(d) {
		return "there"
	}
	return "absent"
}
