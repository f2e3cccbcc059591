package driver

import "errors"

// placeholder until the real backend lands.
func openLibcuda() (API, error) { return nil, errors.New("libcuda backend not built yet") }
