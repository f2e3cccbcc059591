package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

// Kernels compiles [kernels.Source] in ctx (without the on-disk cache) and
// unloads it when the test ends.
func Kernels(t testing.TB, ctx *driver.Context) *module.Module {
	t.Helper()
	m, err := module.Compile(ctx, kernels.Source, module.Options{
		Name:            "conformance_kernels.cu",
		NameExpressions: []string{kernels.FillFloat},
		NoCache:         true,
	})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// testModules checks package module on drv: run-time compilation and its
// cache, module loading, kernel lookup, modules outliving their Context,
// checked and prepared launches, function attributes and occupancy.
func testModules(t *testing.T, drv *driver.Driver) {
	t.Run("compile", func(t *testing.T) { testModuleCompile(t, drv) })
	t.Run("compile-error", func(t *testing.T) { testModuleCompileError(t, drv) })
	t.Run("compile-warnings", func(t *testing.T) { testModuleCompileWarnings(t, drv) })
	t.Run("compile-options", func(t *testing.T) { testModuleCompileOptions(t, drv) })
	t.Run("name-expressions", func(t *testing.T) { testModuleNameExpressions(t, drv) })
	t.Run("missing-function", func(t *testing.T) { testModuleMissingFunction(t, drv) })
	t.Run("load-ptx", func(t *testing.T) { testModuleLoadPTX(t, drv) })
	t.Run("load-cubin", func(t *testing.T) { testModuleLoadCUBIN(t, drv) })
	t.Run("load-bad", func(t *testing.T) { testModuleLoadBad(t, drv) })
	t.Run("ptx-versions", func(t *testing.T) { testModulePTXVersions(t, drv) })
	t.Run("unload", func(t *testing.T) { testModuleUnload(t, drv) })
	t.Run("hold", func(t *testing.T) { testModuleHold(t, drv) })
	t.Run("launch", func(t *testing.T) { testModuleLaunch(t, drv) })
	t.Run("spin", func(t *testing.T) { testModuleSpin(t, drv) })
	t.Run("launch-special-streams", func(t *testing.T) { testModuleLaunchSpecial(t, drv) })
	t.Run("launch-scalars", func(t *testing.T) { testModuleLaunchScalars(t, drv) })
	t.Run("launch-struct", func(t *testing.T) { testModuleLaunchStruct(t, drv) })
	t.Run("arg-checks", func(t *testing.T) { testModuleArgChecks(t, drv) })
	t.Run("config-checks", func(t *testing.T) { testModuleConfigChecks(t, drv) })
	t.Run("wrong-context", func(t *testing.T) { testModuleWrongContext(t, drv) })
	t.Run("prepared", func(t *testing.T) { testModulePrepared(t, drv) })
	t.Run("attributes", func(t *testing.T) { testModuleAttributes(t, drv) })
	t.Run("dynamic-shared", func(t *testing.T) { testModuleDynamicShared(t, drv) })
	t.Run("occupancy", func(t *testing.T) { testModuleOccupancy(t, drv) })
	t.Run("cache", func(t *testing.T) { testModuleCache(t, drv) })
	t.Run("cache-corrupt", func(t *testing.T) { testModuleCacheCorrupt(t, drv) })
	t.Run("cache-env", func(t *testing.T) { testModuleCacheEnv(t, drv) })
	t.Run("cache-concurrent", func(t *testing.T) { testModuleCacheConcurrent(t, drv) })
	t.Run("segment-scale", func(t *testing.T) { testModuleSegmentScale(t, drv) })
}
