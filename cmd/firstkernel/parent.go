package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// parent runs one warming child (a cache miss), then rounds fresh children
// of Go and of C alternately, and prints their phases and the medians.
func parent(rounds int, useFake bool, cSource string, w io.Writer) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "nocgo-firstkernel-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cache := filepath.Join(dir, "cache")
	goRun := func() ([]byte, error) {
		env := []string{childEnv + "=" + cache}
		if useFake {
			env = append(env, "NOCGO_CUDA_FIRSTKERNEL_FAKE=1")
		}
		return run(exe, nil, env)
	}
	warm, err := goRun()
	if err != nil {
		return fmt.Errorf("the warming run: %w\n%s", err, warm)
	}
	if !bytes.Contains(warm, []byte("MISS")) {
		return fmt.Errorf("the warming run hit a cache that should be empty:\n%s", warm)
	}
	var cRun func() ([]byte, error)
	if !useFake {
		if bin, why := buildC(cSource, dir); bin != "" {
			cubin := filepath.Join(cache, cubinName)
			cRun = func() ([]byte, error) { return run(bin, []string{cubin}, cudaLibraryPath()) }
			if out, err := cRun(); err != nil { // its own warming run
				return fmt.Errorf("the C baseline's warming run: %w\n%s", err, out)
			}
		} else {
			fmt.Fprintln(w, "C baseline skipped:", why)
		}
	}
	samples := map[string]map[string][]float64{} // lang -> phase -> ms
	var order []string
	for range rounds {
		for _, r := range []func() ([]byte, error){goRun, cRun} {
			if r == nil {
				continue
			}
			out, err := r()
			if err != nil {
				return fmt.Errorf("%w\n%s", err, out)
			}
			if bytes.Contains(out, []byte("MISS")) {
				return fmt.Errorf("a measured run missed the cache:\n%s", out)
			}
			w.Write(out)
			order = collect(out, samples, order)
		}
	}
	fmt.Fprintf(w, "median of %d fresh processes each (ms):\n%-14s %8s %8s\n", rounds, "phase", "go", "c")
	totals := map[string]float64{}
	for _, ph := range order {
		fmt.Fprintf(w, "%-14s", ph)
		for _, lang := range []string{"go", "c"} {
			if v := samples[lang][ph]; len(v) > 0 {
				m := median(v)
				totals[lang] += m
				fmt.Fprintf(w, " %8.2f", m)
			} else {
				fmt.Fprintf(w, " %8s", "-")
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-14s %8.2f %8.2f\n", "total", totals["go"], totals["c"])
	return nil
}

// run starts bin as a fresh process with args and env added, T0 set to
// the clock just before the start, and returns its output.
func run(bin string, args, env []string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(append(os.Environ(), env...), startEnv+"="+strconv.FormatInt(time.Now().UnixNano(), 10))
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		return out.Bytes(), errors.New(bin + ": still running after 2 minutes: killed")
	}
}

// collect adds the PHASE lines of out to samples, and the phases not seen
// before to order.
func collect(out []byte, samples map[string]map[string][]float64, order []string) []string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || f[0] != "PHASE" || f[4] != "ms" {
			continue
		}
		v, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			continue
		}
		if samples[f[1]] == nil {
			samples[f[1]] = map[string][]float64{}
		}
		if !contains(order, f[2]) {
			order = append(order, f[2])
		}
		samples[f[1]][f[2]] = append(samples[f[1]][f[2]], v)
	}
	return order
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
