// Package readme keeps the repository's README honest: its test checks
// that every Go code block of README.md is, line for line, code from a
// _test.go file of the module, so that it compiles (and, where it comes
// from an Example, runs) with every test run.
package readme
