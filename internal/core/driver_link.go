package core

import "github.com/nocgo/cuda/driver/backend"

// DriverLink ties a public driver type (*driver.Driver) to its backend, so
// that the packages above that need a Driver's backend without a Context
// (package nvml) reach it as they reach a Context's state (see ContextLink).
type DriverLink struct{ api backend.API }

// LinkDriver returns the link to embed in a public driver value.
func LinkDriver(api backend.API) DriverLink { return DriverLink{api} }

func (l *DriverLink) linkedDriver() backend.API { return l.api }

type driverLinked[T any] interface {
	*T
	linkedDriver() backend.API
}

// APIOf returns the backend of a *driver.Driver, or nil for a nil or zero
// one.
func APIOf[P driverLinked[T], T any](d P) backend.API {
	if d == nil {
		return nil
	}
	return d.linkedDriver()
}
