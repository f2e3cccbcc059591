// Package readme keeps the repository's README honest: its test checks
// that every Go code block of README.md is, line for line, code from a
// _test.go file of the module or from the quick-start program
// (cmd/quickstart), so that it compiles (and, where it comes from an
// Example or the program, whose test runs it, runs) with every test run;
// and that the quick start links no fake driver.
package readme
