package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/podlifecycle/conformance/framework/run"
)

// imagesVerb builds what is missing of the images (the offline build, cached: seconds
// when nothing changed), then names the test images the specs' pods run and the
// tarball that holds them, copied to -out when given: what a cluster of one's own
// that reaches no registry needs on each node (make e2e KUBECONFIG=…).
func imagesVerb(args []string) error {
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	out := fs.String("out", "", "copy test-images.tar and test-images.txt into this directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	build := exec.Command("bash", "images/build.sh")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("images/build.sh: %w", err)
	}
	// Where the build keeps them: CACHE_DIR, as images/scripts/steps.sh reads it.
	dir := os.Getenv("CACHE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(cache, "podlifecycle")
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		for _, name := range []string{"test-images.txt", "test-images.tar"} {
			if err := run.CopyFile(filepath.Join(dir, name), filepath.Join(*out, name)); err != nil {
				return err
			}
		}
		dir = *out
	}
	list, err := os.ReadFile(filepath.Join(dir, "test-images.txt"))
	if err != nil {
		return err
	}
	fmt.Print(string(list))
	fmt.Printf("tarball: %s\non each node of your cluster: ctr -n k8s.io images import test-images.tar\n", filepath.Join(dir, "test-images.tar"))
	return nil
}
