package workspace

import (
	"io/fs"
	"path"
	"runtime"
	"sync"
)

// DirStat is one entry of LstatDir: its name and what lstat says of it.
type DirStat struct {
	Name string
	Mode fs.FileMode // the type bits only (0 for a regular file)
	Size int64
	// ModTime and ChangeTime are Unix nanoseconds (ChangeTime is the
	// inode's ctime where the platform has one, else ModTime).
	ModTime, ChangeTime int64
}

// DenyFingerprint identifies the deny list (policy.Deny.Fingerprint).
func (w *FS) DenyFingerprint() string { return w.deny.Fingerprint() }

// LstatDir lists the directory name and lstats the entries that want keeps,
// without following links, relative to the open directory (one fstatat
// each, spread over a few goroutines where the platform has it), in the
// listing's order. Entries the deny list refuses are left out, except
// those for which want says checked: the caller vouches that it checked
// them against a list of the same DenyFingerprint (a name it indexed
// before), which saves a match per unchanged entry. An entry that vanishes
// between the listing and its lstat is left out.
func (w *FS) LstatDir(name string, want func(entry string) (keep, checked bool)) ([]DirStat, error) {
	f, err := w.openDir(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	n, _ := w.clean(name)
	kept := names[:0]
	for _, e := range names {
		keep, checked := want(e)
		if keep && (checked || !w.deny.Denied(path.Join(n, e))) {
			kept = append(kept, e)
		}
	}
	out := make([]DirStat, len(kept))
	ok := make([]bool, len(kept))
	stat := statAt(f, w, n)
	workers := min(runtime.GOMAXPROCS(0)*2, 1+len(kept)/512)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(kept); i += workers {
				ok[i] = stat(kept[i], &out[i]) == nil
			}
		}()
	}
	wg.Wait()
	res := out[:0]
	for i := range out {
		if ok[i] {
			out[i].Name = kept[i]
			res = append(res, out[i])
		}
	}
	return res, nil
}
