package nccl_test

import (
	"testing"

	suite "github.com/nocgo/cuda/conformance"
)

// TestContractFake runs the conformance suite's NCCL contract
// (conformance.RunNCCL) on the fake with two devices.
func TestContractFake(t *testing.T) {
	suite.RunNCCL(t, fakeDriver(t, 2))
}

// TestContractGPU runs it on the real NCCL: on one GPU, the cases that
// need two skip.
func TestContractGPU(t *testing.T) {
	suite.RunNCCL(t, realDriver(t, 1))
}
