// Command create-run-clusters creates the kind clusters of one `make e2e` run
// (E2E_RUN_ID) before its suites start, all at once, so that a later suite's cluster
// is not made in the middle of the run while nothing else happens: the suites then
// reuse them (the run marker makes them the run's own), and delete-run-clusters
// deletes them once every suite has passed. Creating before the suites, not beside
// them, keeps the CPU the creation takes away from specs that time the kubelet.
//
//	create-run-clusters kind-configs/default.yaml kind-configs/backoff-profiles.yaml
//
// Interrupted (Ctrl-C), it deletes what it had begun to create; a creation that fails
// keeps its cluster, with a note on how to inspect and delete it, as a suite would.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/podlifecycle/conformance/framework/cluster"
)

func main() {
	configs := os.Args[1:]
	o := cluster.KindOptionsFromEnvironment()
	if o.RunID == "" || len(configs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: E2E_RUN_ID=<run> create-run-clusters <kind config>...")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	kinds := make([]*cluster.Kind, len(configs))
	for i, path := range configs {
		abs, err := filepath.Abs(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		k, err := cluster.NewKind(abs, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		kinds[i] = k
	}
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Go(func() { _, errs[i] = k.Acquire(ctx) })
	}
	wg.Wait()

	failed := errors.Join(errs...)
	outcome := cluster.Succeeded
	switch {
	case ctx.Err() != nil:
		outcome = cluster.Interrupted
	case failed != nil:
		outcome = cluster.Failed
	}
	for i, k := range kinds {
		if errs[i] != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", configs[i], errs[i])
		}
		if outcome != cluster.Succeeded {
			if err := k.Release(context.WithoutCancel(ctx), &cluster.Cluster{}, outcome); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}
	}
	if outcome != cluster.Succeeded {
		os.Exit(1)
	}
}
