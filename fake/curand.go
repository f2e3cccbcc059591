package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	fakecurand "github.com/nocgo/cuda/fake/internal/curand"
)

// CURAND returns the fake's cuRAND (backend.RANDProvider): generators
// computed on the CPU in stream order (see fake/internal/curand for which
// outputs are cuRAND's bit for bit).
func (b *fakeBackend) CURAND() (backend.CURAND, error) {
	b.libs.randOnce.Do(func() { b.libs.rand = fakecurand.New(libQueue{b}) })
	return b.libs.rand, nil
}

var _ backend.RANDProvider = (*fakeBackend)(nil)
