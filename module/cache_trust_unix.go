//go:build unix

package module

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// owned returns nil when fi, a cache directory or entry, belongs to the
// current user (the effective uid, whose files this process creates) and
// is writable by no one else: not by its group, not by others. Otherwise it
// says why. It is how ssh treats ~/.ssh and its files: whoever else can
// write there can plant an entry, and the cache would load their code onto
// this process's GPU.
func owned(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: owner unknown", fi.Name())
	}
	if uid := os.Geteuid(); int64(st.Uid) != int64(uid) {
		return fmt.Errorf("%s: owned by uid %d, not by the current user (uid %d)", fi.Name(), st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		who := "its group"
		switch {
		case perm&0o022 == 0o022:
			who = "its group and others"
		case perm&0o002 != 0:
			who = "others"
		}
		return fmt.Errorf("%s: writable by %s (mode %#o)", fi.Name(), who, perm)
	}
	return nil
}
