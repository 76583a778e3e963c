package run

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// kindConfigRef is how a suite names the kind config of its cluster.
var kindConfigRef = regexp.MustCompile(`kind-configs/[a-z0-9-]+\.yaml`)

// KindConfigs returns a function that names the kind configs the specs of a suite
// use, read from the suite's test files in repo: "./suites/lifecycle" reads the files
// of that directory, "./suites/restart/..." those below it too.
func KindConfigs(repo fs.FS) func(suite string) ([]string, error) {
	return func(suite string) ([]string, error) {
		dir, recursive := strings.CutSuffix(path.Clean(strings.TrimPrefix(suite, "./")), "/...")
		var out []string
		err := fs.WalkDir(repo, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && !recursive {
					return fs.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, "_test.go") {
				return nil
			}
			data, err := fs.ReadFile(repo, p)
			if err != nil {
				return err
			}
			out = append(out, kindConfigRef.FindAllString(string(data), -1)...)
			return nil
		})
		slices.Sort(out)
		return slices.Compact(out), err
	}
}
