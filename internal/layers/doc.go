// Package layers keeps the module's folders following its imports: its test
// reads the layer table of docs/ARCHITECTURE.md and fails when a package
// imports one of a higher layer or of a folder above its own, or when a
// package is on no layer.
package layers
