package main

import (
	"fmt"
	"io"
	"reflect"
)

// headerProperties are the fields of driver.Properties that print prints
// in its header lines, above the others.
var headerProperties = map[string]bool{
	"Name": true, "UUID": true, "PCIBusIDStr": true, "TotalMemory": true,
	"Major": true, "Minor": true, "MultiprocessorCount": true,
}

// printProperties prints every other field of p (a driver.Properties), one
// a line, under its Go name.
func printProperties(w io.Writer, p any) {
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if headerProperties[f.Name] {
			continue
		}
		fmt.Fprintf(w, "  %-28s %v\n", f.Name, v.Field(i).Interface())
	}
}
