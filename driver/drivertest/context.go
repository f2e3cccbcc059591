package drivertest

import (
	"testing"

	"github.com/nocgo/cuda/driver"
)

func testErrors(t *testing.T, drv *driver.Driver)   { t.Skip("not written yet") }
func testDevices(t *testing.T, drv *driver.Driver)  { t.Skip("not written yet") }
func testContexts(t *testing.T, drv *driver.Driver) { t.Skip("not written yet") }
