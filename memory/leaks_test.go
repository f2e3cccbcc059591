package memory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// assertNoLeaks checks that nothing but retained primary contexts is left
// alive in the fake backend of drv: no device or pinned memory, stream or
// event. It must run before the last primary context reference is released,
// since that release frees the context's memory, as on the driver.
func assertNoLeaks(t *testing.T, drv *driver.Driver) {
	t.Helper()
	b := fake.Of(drv)
	if !assert.NotNil(t, b, "not a fake driver") {
		return
	}
	var leaks []string
	for _, l := range b.Leaks() {
		if l.Kind != backend.LeakPrimaryContext {
			leaks = append(leaks, l.String())
		}
	}
	assert.Empty(t, leaks, "objects left alive at the end of the test")
}
