package cudatest_test

import (
	"fmt"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
)

// In a test, drv := cudatest.Driver(t) gives the real driver or a fake one;
// IsFake tells them apart for the checks that hold on one only.
func ExampleIsFake() {
	drv := fake.New()
	fmt.Println(cudatest.IsFake(drv))
	// Output: true
}
