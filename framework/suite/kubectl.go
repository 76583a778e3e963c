package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// KubectlBound bounds one kubectl call: the binary's start and one or two API round
// trips, a second or two on a loaded 2-core machine; 30 s.
const KubectlBound = 30 * time.Second

// KubectlBinary is the kubectl a spec that checks what the pages say of kubectl runs:
// KUBECTL, else kubectl on PATH, else the one the project's image build made for the
// Kubernetes release the suites check; "" if none.
func KubectlBinary() string {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	if k, err := exec.LookPath("kubectl"); err == nil {
		return k
	}
	if home, err := os.UserHomeDir(); err == nil {
		k := filepath.Join(home, ".cache", "podlifecycle", "bin", "kubernetes-"+ExpectedServerVersion(), "kubectl")
		if _, err := os.Stat(k); err == nil {
			return k
		}
	}
	return ""
}

// KubectlRun is one kubectl call's outcome.
type KubectlRun struct {
	Args           []string
	Code           int
	Stdout, Stderr string
}

func (r KubectlRun) String() string {
	return fmt.Sprintf("`kubectl %s`: exit %d, stdout %q, stderr %q", strings.Join(r.Args, " "), r.Code, r.Stdout, r.Stderr)
}

// Kubectl runs bin against the suite's cluster through its kubeconfig; a non-zero exit
// is an outcome, not an error. It takes at most KubectlBound.
func (e *Env) Kubectl(ctx context.Context, bin string, args ...string) KubectlRun {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, KubectlBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", e.Cluster.Kubeconfig}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := KubectlRun{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		r.Code, err = exit.ExitCode(), nil
	}
	Expect(err).NotTo(HaveOccurred(), "running %s %v (bound %v)", bin, args, KubectlBound)
	return r
}
