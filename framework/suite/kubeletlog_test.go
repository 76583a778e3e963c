package suite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines as a v1.37.2 kubelet writes them to the journal (journalctl -o short-precise).
const journal = `Dec 01 00:33:13.476945 w5 kubelet[307]: I1201 00:33:13.476363 307 reconciler_common.go:251] "operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-nr552\" (UniqueName: \"kubernetes.io/projected/a549-kube-api-access-nr552\") pod \"web\" (UID: \"a549\") " pod="plc-x/web"
Dec 01 00:33:14.000001 w5 kubelet[307]: I1201 00:33:14.000000 307 kubelet.go:2500] "SyncLoop UPDATE" source="api" pods=["plc-x/web-2"]
Dec 01 00:33:15.276831 w5 kubelet[307]: I1201 00:33:15.276687 307 server.go:177] "Pod update broadcasted" podUID="a549" type="MODIFIED"
Dec 01 00:33:16.000001 w5 kubelet[307]: I1201 00:33:16.000000 307 kubelet.go:2500] "SyncLoop UPDATE" source="api" pods=["plc-x/web"]
Dec 01 00:33:17.000001 w5 kubelet[307]: I1201 00:33:17.000000 307 kubelet.go:2500] "SyncLoop UPDATE" source="api" pods=["plc-y/web"]
`

// The script runs as written against a stand-in journalctl: it asks for the spec's
// window with a second of slack, and keeps the last lines naming the pod, not its
// namesakes in other namespaces nor pods whose name only starts with its own.
func TestKubeletLogScript(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\necho \"$*\" >" + filepath.Join(bin, "args") + "\ncat <<'EOF'\n" + journal + "EOF\n"
	if err := os.WriteFile(filepath.Join(bin, "journalctl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	since, until := time.Unix(1796084050, 5e8), time.Unix(1796084110, 0)
	script := kubeletLogScript(since, until, podPatterns("plc-x", "web", "a549"), 2)
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `podUID="a549"`) || !strings.HasSuffix(lines[1], `pods=["plc-x/web"]`) {
		t.Errorf("got %q", lines)
	}
	args, _ := os.ReadFile(filepath.Join(bin, "args"))
	if got := strings.TrimSpace(string(args)); got != "-u kubelet --since @1796084049 --until @1796084111 --no-pager -o short-precise" {
		t.Errorf("journalctl %s", got)
	}
}

func TestKubeletLogScriptWithoutJournalctl(t *testing.T) {
	cmd := exec.Command("sh", "-c", kubeletLogScript(time.Now(), time.Now(), podPatterns("ns", "p", ""), 10))
	cmd.Env = []string{"PATH=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no journalctl on the node") {
		t.Errorf("want a failure that says why, got %v: %s", err, out)
	}
}
