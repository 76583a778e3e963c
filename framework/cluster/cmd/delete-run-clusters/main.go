// Command delete-run-clusters deletes the kind clusters that one `make e2e` run
// created (E2E_RUN_ID), once all its suites have passed. Suites of a run share
// clusters, so none of them deletes a cluster on its own success.
package main

import (
	"fmt"
	"os"

	"github.com/podlifecycle/conformance/framework/cluster"
)

func main() {
	o := cluster.KindOptionsFromEnvironment()
	if o.RunID == "" {
		fmt.Fprintln(os.Stderr, "delete-run-clusters: E2E_RUN_ID is not set; nothing to do")
		return
	}
	if err := cluster.DeleteRunClusters(o, o.RunID); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
