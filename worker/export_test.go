package worker

// ForgetMain makes New find Main not called, as in a program whose main
// never called it, until the returned function restores it: for the test
// of that refusal, in this binary whose TestMain calls Main.
func ForgetMain() (restore func()) {
	was := mainCalled.Swap(false)
	return func() { mainCalled.Store(was) }
}
