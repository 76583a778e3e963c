package main

// TestRunnerRBAC checks that the RBAC images/runner/job.yaml gives the runner Job's
// service account grants every API request the suites' code makes through client-go:
// a call that lacks its grant gets 403 from the API server in the Job (`make
// runner-job`) where `make e2e`, with a kind cluster's admin credentials, passes.
//
// It reads the code, not a run: every non-generated .go file under framework/ and
// suites/ (tests included) is parsed, and each request found is mapped to the
// (API group, resource[/subresource], verb) the API server authorizes it as:
//
//   - typed clientset calls, X.<Group><Version>().<Resource>(...).<Method>(...), also
//     through a variable that holds X.<Group><Version>().<Resource>(...);
//   - RESTClient request chains, X.<Group><Version>().RESTClient().Get().Resource("r")
//     .Name(n).SubResource("s")..., and X.Discovery().RESTClient().Get().AbsPath("/p")
//     (a non-resource URL), X.Discovery().ServerVersion() (/version);
//   - list-watches made from a RESTClient and a resource name (informerOf,
//     cache.New[Filtered]ListWatchFromClient): list and watch.
//
// A client call it cannot map (a method of the clientset it does not know, a RESTClient
// or a typed client handed on to code it does not read) fails the test too, naming the
// call: map it here rather than let it pass unread. What it does not see: objects
// created through e2e-framework's klient (suite.Env.Create, CreateManifest: Services,
// ConfigMaps, Jobs of the specs), whose kinds are values, not calls.
//
// The grants counted are those of the ClusterRoles that ClusterRoleBindings in
// job.yaml give the Job's service account (everywhere), and of Roles and ClusterRoles
// that RoleBindings give it (only for a call whose namespace is that binding's, as a
// string literal: the specs' own namespaces are generated, plc-<suite>-*).

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// runnerManifest is the Job and its RBAC, relative to the repository root.
const runnerManifest = "images/runner/job.yaml"

// exemption is a request the runner's RBAC leaves out on purpose, because the Job
// never makes it. Each is named by the file and enclosing function of its calls (""
// for code outside any function, a spec tree under `var _ = Describe(...)`) and is
// checked, as verify says, to be what its reason claims; an entry that matches no call
// fails the test, so that the list does not outlive the code.
type exemption struct {
	file, fn string
	access   access
	why      string
	verify   verification
}

type verification int

const (
	// The call is made only by Disruptive specs, which the Job's entrypoint
	// (images/runner/run.sh) leaves out by label filter (its service account gets no
	// ALLOW_DISRUPTIVE, nor a node shell): it sits inside a Ginkgo node labelled
	// Disruptive, or in a function that fails unless the current spec is labelled
	// Disruptive, or in a function every use of which in its package is one of these.
	disruptiveOnly verification = iota + 1
	// The call is made only on the way to a kind cluster the suite creates itself
	// (the function's every use in its package is in a method of cluster.Kind), which
	// the Job, on the cluster it runs in (E2E_IN_CLUSTER=1), never does.
	kindClusterOnly
	// Nothing to check in the code: the grant comes from Kubernetes' default RBAC.
	defaultGrant
)

var exemptions = []exemption{
	{file: "framework/suite/taints.go", fn: "Env.updateTaints", access: access{resource: "nodes", verb: "update"}, verify: disruptiveOnly,
		why: "taints (AddTaint, RemoveTaint); updateTaints fails a spec not labelled Disruptive"},
	{file: "suites/lifecycle/disruption_test.go", fn: "priorityClass", access: access{group: "scheduling.k8s.io", resource: "priorityclasses", verb: "create"}, verify: disruptiveOnly,
		why: "the preemption spec's cluster-scoped PriorityClasses"},
	{file: "suites/lifecycle/disruption_test.go", fn: "priorityClass", access: access{group: "scheduling.k8s.io", resource: "priorityclasses", verb: "delete"}, verify: disruptiveOnly,
		why: "the preemption spec's cluster-scoped PriorityClasses, deleted again"},
	{file: "suites/lifecycle/nodeloss/nodeloss_test.go", fn: "", access: access{resource: "nodes", verb: "delete"}, verify: disruptiveOnly,
		why: "a Node object deleted (Slow and Disruptive)"},
	{file: "framework/cluster/ready.go", fn: "waitForSystem", access: access{group: "apps", resource: "daemonsets", verb: "list"}, verify: kindClusterOnly,
		why: "kube-system's readiness after creating a kind cluster"},
	{file: "framework/cluster/ready.go", fn: "waitForSystem", access: access{group: "apps", resource: "deployments", verb: "list"}, verify: kindClusterOnly,
		why: "kube-system's readiness after creating a kind cluster"},
	{file: "suites/termination/finaldelete_test.go", fn: "whoAmI", access: access{group: "authentication.k8s.io", resource: "selfsubjectreviews", verb: "create"}, verify: defaultGrant,
		why: "the default ClusterRole system:basic-user grants it to every authenticated user (system:authenticated)"},
	{file: "framework/preflight/preflight.go", fn: "checkCluster", access: access{group: "authorization.k8s.io", resource: "selfsubjectaccessreviews", verb: "create"}, verify: defaultGrant,
		why: "the preflight asks, with your credentials before a run, what they may do; system:basic-user grants every authenticated user the question"},
}

// access is one request as RBAC authorizes it: a resource request (group, resource
// with its subresource as "pods/log", verb) or, with url set, a non-resource URL.
type access struct {
	group, resource, verb, url string
}

func (a access) String() string {
	if a.url != "" {
		return fmt.Sprintf("nonResourceURL %s %s", a.url, a.verb)
	}
	g := a.group
	if g == "" {
		g = `"" (core)`
	}
	return fmt.Sprintf("apiGroup %s, resource %s, verb %s", g, a.resource, a.verb)
}

// use is one request a call makes.
type use struct {
	access
	namespace string // the namespace as a string literal; "" when generated or cluster-scoped
	pos       string // file:line, relative to the repository
	file, fn  string
	// Where the call sits: inside a Ginkgo node labelled Disruptive, in a function
	// that first fails a spec not labelled Disruptive.
	inDisruptiveNode, inGuardedFn bool
}

// groups maps the clientset's group accessors (without their version) to API groups.
var groups = map[string]string{
	"Admissionregistration": "admissionregistration.k8s.io",
	"Internal":              "internal.apiserver.k8s.io",
	"Apps":                  "apps",
	"Authentication":        "authentication.k8s.io",
	"Authorization":         "authorization.k8s.io",
	"Autoscaling":           "autoscaling",
	"Batch":                 "batch",
	"Certificates":          "certificates.k8s.io",
	"Coordination":          "coordination.k8s.io",
	"Core":                  "",
	"Discovery":             "discovery.k8s.io",
	"Events":                "events.k8s.io",
	"Extensions":            "extensions",
	"Flowcontrol":           "flowcontrol.apiserver.k8s.io",
	"Lifecycle":             "lifecycle.k8s.io",
	"Networking":            "networking.k8s.io",
	"Node":                  "node.k8s.io",
	"Policy":                "policy",
	"Rbac":                  "rbac.authorization.k8s.io",
	"Resource":              "resource.k8s.io",
	"Scheduling":            "scheduling.k8s.io",
	"Storage":               "storage.k8s.io",
	"Storagemigration":      "storagemigration.k8s.io",
}

var groupVersionRe = regexp.MustCompile(`^([A-Z][a-z]+)V[0-9]+((alpha|beta)[0-9]+)?$`)

// typedVerb maps a typed client's method to its verb and the subresource it goes to
// ("" for the resource itself).
func typedVerb(resource, method string) (verb, sub string, ok bool) {
	switch method {
	case "Create", "Get", "List", "Watch", "Update", "Patch", "Delete":
		return strings.ToLower(method), "", true
	case "DeleteCollection":
		return "deletecollection", "", true
	case "Apply": // server-side apply is a PATCH
		return "patch", "", true
	case "UpdateStatus":
		return "update", "status", true
	case "ApplyStatus":
		return "patch", "status", true
	case "GetScale":
		return "get", "scale", true
	case "UpdateScale":
		return "update", "scale", true
	case "ApplyScale":
		return "patch", "scale", true
	case "ProxyGet":
		return "get", "proxy", true
	}
	if resource == "pods" {
		switch method {
		case "GetLogs":
			return "get", "log", true
		case "Evict", "EvictV1", "EvictV1beta1":
			return "create", "eviction", true
		case "Bind":
			return "create", "binding", true
		case "UpdateResize":
			return "update", "resize", true
		case "UpdateEphemeralContainers":
			return "update", "ephemeralcontainers", true
		}
	}
	if resource == "namespaces" && method == "Finalize" {
		return "update", "finalize", true
	}
	return "", "", false
}

// restVerbs maps a RESTClient request's HTTP method to its verb (a GET or DELETE
// without a name is a list or a deletecollection; a request that ends in Watch is a
// watch).
var restVerbs = map[string]string{"Get": "get", "Post": "create", "Put": "update", "Patch": "patch", "Delete": "delete"}

// listWatchFuncs make a list-watch of a RESTClient (their first argument) and a
// resource (their second, a string literal).
var listWatchFuncs = map[string]bool{"informerOf": true, "NewListWatchFromClient": true, "NewFilteredListWatchFromClient": true}

// ginkgoNodes are the Ginkgo nodes a Label decorates.
var ginkgoNodes = map[string]bool{}

func init() {
	for _, n := range []string{"Describe", "Context", "When", "It", "Specify", "DescribeTable", "DescribeTableSubtree", "Entry"} {
		for _, p := range []string{"", "F", "P", "X"} {
			ginkgoNodes[p+n] = true
		}
	}
}

func TestRunnerRBAC(t *testing.T) {
	root := repoRoot(t)
	grants := readGrants(t, filepath.Join(root, runnerManifest))
	pkgs := parsePackages(t, root, "framework", "suites")

	var uses []use
	var problems []string
	idx := map[string]*pkgIndex{}
	for _, p := range pkgs {
		a := &analyzer{fset: p.fset, root: root, idx: &pkgIndex{refs: map[string][]ref{}, guarded: map[string]bool{}}}
		for _, f := range p.files {
			a.file(f)
		}
		uses = append(uses, a.uses...)
		problems = append(problems, a.problems...)
		idx[p.dir] = a.idx
	}
	for _, p := range problems {
		t.Errorf("%s (map it in cmd/podlifecycle/rbac_test.go)", p)
	}
	if len(uses) == 0 {
		t.Fatal("no client calls found under framework/ and suites/: the test no longer reads the code")
	}

	matched := make([]int, len(exemptions))
	missing := map[access][]string{}
	for _, u := range uses {
		if grants.allow(u) {
			continue
		}
		if i := exemptionOf(u); i >= 0 {
			matched[i]++
			e := exemptions[i]
			if err := e.check(u, idx[filepath.Dir(u.file)]); err != nil {
				t.Errorf("%s: %s is exempt (%s), but %v", u.pos, u.access, e.why, err)
			}
			continue
		}
		missing[u.access] = append(missing[u.access], u.pos)
	}
	// An exemption of a request the role grants anyway still matches its calls.
	for _, u := range uses {
		if i := exemptionOf(u); i >= 0 && grants.allow(u) {
			matched[i]++
		}
	}
	keys := make([]access, 0, len(missing))
	for a := range missing {
		keys = append(keys, a)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, a := range keys {
		t.Errorf("%s grants the runner no %s, which these calls need: %s", runnerManifest, a, strings.Join(missing[a], ", "))
	}
	for i, e := range exemptions {
		if matched[i] == 0 {
			t.Errorf("exemption of %s in %s %s matches no call: remove it from rbac_test.go", e.access, e.file, e.fn)
		} else {
			t.Logf("exempt (%d calls): %s in %s %s: %s", matched[i], e.access, e.file, e.fn, e.why)
		}
	}
	t.Logf("%d requests read from the code", len(uses))
}

func exemptionOf(u use) int {
	for i, e := range exemptions {
		if e.file == u.file && e.fn == u.fn && e.access == u.access {
			return i
		}
	}
	return -1
}

func (e exemption) check(u use, idx *pkgIndex) error {
	switch e.verify {
	case disruptiveOnly:
		if u.inDisruptiveNode || u.inGuardedFn || (u.fn != "" && idx.disruptiveOnly(u.fn, map[string]bool{})) {
			return nil
		}
		return fmt.Errorf("the call is not only a Disruptive spec's (in a node labelled Disruptive, or a function only such specs use)")
	case kindClusterOnly:
		refs := idx.refs[u.fn]
		if u.fn == "" || len(refs) == 0 {
			return fmt.Errorf("%q is not a function used in its package", u.fn)
		}
		for _, r := range refs {
			if !strings.HasPrefix(r.fn, "Kind.") {
				return fmt.Errorf("%s uses %s outside cluster.Kind's methods", r.pos, u.fn)
			}
		}
		return nil
	case defaultGrant:
		return nil
	}
	return fmt.Errorf("no verification for exemption %+v", e)
}

// Reading the manifest.

type grants struct {
	everywhere  []rbacv1.PolicyRule            // ClusterRoles bound by ClusterRoleBindings
	inNamespace map[string][]rbacv1.PolicyRule // Roles and ClusterRoles bound by RoleBindings
}

func (g grants) allow(u use) bool {
	if allows(g.everywhere, u.access) {
		return true
	}
	return u.namespace != "" && u.url == "" && allows(g.inNamespace[u.namespace], u.access)
}

// allows is RBAC's own rule match, but for resourceNames: a rule that names its
// objects is not counted, since the names the code asks for are values.
func allows(rules []rbacv1.PolicyRule, a access) bool {
	for _, r := range rules {
		if !slices.Contains(r.Verbs, a.verb) && !slices.Contains(r.Verbs, rbacv1.VerbAll) {
			continue
		}
		if a.url != "" {
			for _, u := range r.NonResourceURLs {
				if u == a.url || u == rbacv1.NonResourceAll || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.url, strings.TrimSuffix(u, "*"))) {
					return true
				}
			}
			continue
		}
		if len(r.ResourceNames) > 0 || (!slices.Contains(r.APIGroups, a.group) && !slices.Contains(r.APIGroups, rbacv1.APIGroupAll)) {
			continue
		}
		for _, res := range r.Resources {
			if res == a.resource || res == rbacv1.ResourceAll {
				return true
			}
			if _, sub, ok := strings.Cut(a.resource, "/"); ok && res == "*/"+sub {
				return true
			}
		}
	}
	return false
}

func readGrants(t *testing.T, path string) grants {
	t.Helper()
	type meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	var job struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec struct {
					ServiceAccountName string `json:"serviceAccountName"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	clusterRoles := map[string][]rbacv1.PolicyRule{}
	roles := map[[2]string][]rbacv1.PolicyRule{} // by namespace, name
	var crbs []rbacv1.ClusterRoleBinding
	var rbs []rbacv1.RoleBinding
	jobs := 0
	for i, doc := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(string(mustRead(t, path)), -1) {
		var m meta
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%s, document %d: %v", path, i+1, err)
		}
		unmarshal := func(into any) {
			if err := yaml.Unmarshal([]byte(doc), into); err != nil {
				t.Fatalf("%s, %s %s: %v", path, m.Kind, m.Metadata.Name, err)
			}
		}
		switch m.Kind {
		case "ClusterRole":
			var r rbacv1.ClusterRole
			unmarshal(&r)
			clusterRoles[r.Name] = r.Rules
		case "Role":
			var r rbacv1.Role
			unmarshal(&r)
			roles[[2]string{r.Namespace, r.Name}] = r.Rules
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			unmarshal(&b)
			crbs = append(crbs, b)
		case "RoleBinding":
			var b rbacv1.RoleBinding
			unmarshal(&b)
			rbs = append(rbs, b)
		case "Job":
			jobs++
			unmarshal(&job)
		}
	}
	if jobs != 1 {
		t.Fatalf("%s: %d Jobs, want 1", path, jobs)
	}
	sa, ns := job.Spec.Template.Spec.ServiceAccountName, job.Metadata.Namespace
	if sa == "" {
		sa = "default"
	}
	isRunner := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == sa && s.Namespace == ns
		})
	}
	g := grants{inNamespace: map[string][]rbacv1.PolicyRule{}}
	for _, b := range crbs {
		if !isRunner(b.Subjects) {
			continue
		}
		rules, ok := clusterRoles[b.RoleRef.Name]
		if b.RoleRef.Kind != "ClusterRole" || !ok {
			t.Fatalf("%s: ClusterRoleBinding %s binds %s %s, which is not in the file", path, b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		g.everywhere = append(g.everywhere, rules...)
	}
	for _, b := range rbs {
		if !isRunner(b.Subjects) {
			continue
		}
		var rules []rbacv1.PolicyRule
		var ok bool
		switch b.RoleRef.Kind {
		case "ClusterRole":
			rules, ok = clusterRoles[b.RoleRef.Name]
		case "Role":
			rules, ok = roles[[2]string{b.Namespace, b.RoleRef.Name}]
		}
		if !ok {
			t.Fatalf("%s: RoleBinding %s/%s binds %s %s, which is not in the file", path, b.Namespace, b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		g.inNamespace[b.Namespace] = append(g.inNamespace[b.Namespace], rules...)
	}
	if len(g.everywhere) == 0 && len(g.inNamespace) == 0 {
		t.Fatalf("%s: nothing binds a role to the Job's service account %s/%s", path, ns, sa)
	}
	return g
}

// Reading the code.

type pkg struct {
	dir   string // relative to the repository
	fset  *token.FileSet
	files []*ast.File
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/podlifecycle/conformance\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/podlifecycle/conformance above the working directory")
		}
		dir = parent
	}
}

// parsePackages parses every non-generated .go file under the dirs, by directory.
func parsePackages(t *testing.T, root string, dirs ...string) []*pkg {
	t.Helper()
	byDir := map[string]*pkg{}
	var order []string
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if n := e.Name(); n == "testdata" || n == "vendor" || (path != filepath.Join(root, d) && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_"))) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			dir := filepath.ToSlash(filepath.Dir(rel))
			p := byDir[dir]
			if p == nil {
				p = &pkg{dir: dir, fset: token.NewFileSet()}
				byDir[dir] = p
				order = append(order, dir)
			}
			f, err := parser.ParseFile(p.fset, rel, mustRead(t, path), parser.ParseComments)
			if err != nil {
				return err
			}
			if !ast.IsGenerated(f) {
				p.files = append(p.files, f)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	out := make([]*pkg, 0, len(order))
	for _, d := range order {
		out = append(out, byDir[d])
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pkgIndex is what the Disruptive and kind-only checks need of a package: where each
// name is used, and which functions start by failing a spec not labelled Disruptive.
type pkgIndex struct {
	refs    map[string][]ref
	guarded map[string]bool
}

// ref is a use of a name (not as a selector's field or method, nor its declaration).
type ref struct {
	fn               string // the function it is used in
	pos              string
	inDisruptiveNode bool
}

// disruptiveOnly says whether each use of the function fn (not a method) in its
// package is a Disruptive spec's.
func (idx *pkgIndex) disruptiveOnly(fn string, seen map[string]bool) bool {
	if strings.Contains(fn, ".") || seen[fn] {
		return false
	}
	seen[fn] = true
	refs := idx.refs[fn]
	if len(refs) == 0 {
		return false
	}
	for _, r := range refs {
		if !r.inDisruptiveNode && !idx.guarded[r.fn] && (r.fn == "" || !idx.disruptiveOnly(r.fn, seen)) {
			return false
		}
	}
	return true
}

// binding is what a variable holds: a typed client of a resource, or a RESTClient.
type binding struct {
	rest, discovery bool // a RESTClient; of the discovery client
	group           string
	resource        string // a typed client's
	namespace       string // a typed client's namespace, as a string literal
}

type analyzer struct {
	fset     *token.FileSet
	root     string
	idx      *pkgIndex
	uses     []use
	problems []string

	// Per file.
	bindings map[*ast.Object]binding
	defs     map[*ast.Ident]bool // the identifiers a binding is declared with
	consumed map[ast.Node]bool   // group accessor calls and bound identifiers read here
	clients  []ast.Node          // every group accessor call and bound identifier seen
	stack    []ast.Node
	fn       string // the enclosing function
	guarded  bool   // it starts by failing a spec not labelled Disruptive
}

func (a *analyzer) pos(n ast.Node) string {
	p := a.fset.Position(n.Pos())
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}

func (a *analyzer) problem(n ast.Node, format string, args ...any) {
	a.problems = append(a.problems, a.pos(n)+": "+fmt.Sprintf(format, args...))
}

func (a *analyzer) file(f *ast.File) {
	a.bindings, a.defs, a.consumed, a.clients = map[*ast.Object]binding{}, map[*ast.Ident]bool{}, map[ast.Node]bool{}, nil
	for _, d := range f.Decls {
		a.fn, a.guarded = "", false
		if fd, ok := d.(*ast.FuncDecl); ok {
			a.fn = funcName(fd)
			a.guarded = startsWithDisruptiveGuard(fd)
			a.idx.guarded[a.fn] = a.guarded
		}
		a.stack = a.stack[:0]
		ast.Inspect(d, a.visit)
	}
	for _, n := range a.clients {
		if !a.consumed[n] {
			a.problem(n, "a client (%s) this test cannot tell the requests of", exprString(n))
		}
	}
}

func (a *analyzer) visit(n ast.Node) bool {
	if n == nil {
		a.stack = a.stack[:len(a.stack)-1]
		return true
	}
	a.stack = append(a.stack, n)
	switch n := n.(type) {
	case *ast.FuncDecl:
		a.defs[n.Name] = true // not a use of the name
	case *ast.SelectorExpr:
		a.defs[n.Sel] = true // a field or method, not a use of a package-level name
	case *ast.Ident:
		if !a.defs[n] {
			a.idx.refs[n.Name] = append(a.idx.refs[n.Name], ref{fn: a.fn, pos: a.pos(n), inDisruptiveNode: a.inDisruptiveNode()})
		}
		if n.Obj != nil {
			if _, ok := a.bindings[n.Obj]; ok && !a.defs[n] {
				a.clients = append(a.clients, n)
			}
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) {
			for i := range n.Lhs {
				a.bind(n.Lhs[i], n.Rhs[i])
			}
		}
	case *ast.ValueSpec:
		if len(n.Names) == len(n.Values) {
			for i := range n.Names {
				a.bind(n.Names[i], n.Values[i])
			}
		}
	case *ast.CallExpr:
		if _, ok := groupAccessor(n); ok {
			a.clients = append(a.clients, n)
		}
		a.call(n)
	}
	return true
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return "?." + fd.Name.Name
}

// startsWithDisruptiveGuard: the function's first statement (after GinkgoHelper()) is an if on the current
// spec's labels and Disruptive that fails or returns, as suite.Env.updateTaints' and
// NodeShell's are.
func startsWithDisruptiveGuard(fd *ast.FuncDecl) bool {
	if fd.Body == nil {
		return false
	}
	stmts := fd.Body.List
	for len(stmts) > 0 { // GinkgoHelper() first changes nothing
		es, ok := stmts[0].(*ast.ExprStmt)
		if !ok {
			break
		}
		if c, ok := es.X.(*ast.CallExpr); !ok || calleeName(c) != "GinkgoHelper" {
			break
		}
		stmts = stmts[1:]
	}
	if len(stmts) == 0 {
		return false
	}
	is, ok := stmts[0].(*ast.IfStmt)
	if !ok || is.Init != nil {
		return false
	}
	var spec, disruptive, stops bool
	ast.Inspect(is.Cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			spec = spec || calleeName(n) == "CurrentSpecReport"
		case *ast.Ident:
			disruptive = disruptive || n.Name == "Disruptive"
		}
		return true
	})
	ast.Inspect(is.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			stops = stops || calleeName(n) == "Fail"
		case *ast.ReturnStmt:
			stops = true
		}
		return true
	})
	return spec && disruptive && stops
}

// inDisruptiveNode: an enclosing call is a Ginkgo node decorated with a Label that
// names Disruptive (suite.Disruptive, or Disruptive in package suite).
func (a *analyzer) inDisruptiveNode() bool {
	for _, n := range a.stack {
		c, ok := n.(*ast.CallExpr)
		if !ok || !ginkgoNodes[calleeName(c)] {
			continue
		}
		for _, arg := range c.Args {
			l, ok := arg.(*ast.CallExpr)
			if !ok || calleeName(l) != "Label" {
				continue
			}
			for _, la := range l.Args {
				switch la := la.(type) {
				case *ast.Ident:
					if la.Name == "Disruptive" {
						return true
					}
				case *ast.SelectorExpr:
					if la.Sel.Name == "Disruptive" {
						return true
					}
				}
			}
		}
	}
	return false
}

func calleeName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// groupAccessor: c is X.<Group><Version>() of a clientset; group is its API group.
func groupAccessor(c *ast.CallExpr) (group string, ok bool) {
	s, isSel := c.Fun.(*ast.SelectorExpr)
	if !isSel || len(c.Args) != 0 {
		return "", false
	}
	if s.Sel.Name == "Discovery" {
		return "", true
	}
	m := groupVersionRe.FindStringSubmatch(s.Sel.Name)
	if m == nil {
		return "", false
	}
	return groups[m[1]], true
}

func isDiscovery(c *ast.CallExpr) bool {
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Discovery" && len(c.Args) == 0
}

// client is what e is, if a client this test reads: X.<GV>().<Resource>(ns),
// X.<GV>().RESTClient(), X.Discovery().RESTClient(), or a variable holding one.
func (a *analyzer) client(e ast.Expr) (binding, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Obj == nil {
			return binding{}, false
		}
		b, ok := a.bindings[e.Obj]
		if ok {
			a.consumed[e] = true
		}
		return b, ok
	case *ast.ParenExpr:
		return a.client(e.X)
	case *ast.CallExpr:
		s, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return binding{}, false
		}
		inner, ok := s.X.(*ast.CallExpr)
		if !ok {
			return binding{}, false
		}
		group, ok := groupAccessor(inner)
		if !ok {
			return binding{}, false
		}
		gv := inner.Fun.(*ast.SelectorExpr).Sel.Name
		if m := groupVersionRe.FindStringSubmatch(gv); m != nil {
			if _, known := groups[m[1]]; !known {
				a.problem(inner, "the clientset's %s: an API group this test does not know", gv)
				a.consumed[inner] = true
				return binding{}, false
			}
		}
		if s.Sel.Name == "RESTClient" && len(e.Args) == 0 {
			a.consumed[inner] = true
			return binding{rest: true, discovery: isDiscovery(inner), group: group}, true
		}
		if isDiscovery(inner) || !ast.IsExported(s.Sel.Name) {
			return binding{}, false
		}
		a.consumed[inner] = true
		b := binding{group: group, resource: strings.ToLower(s.Sel.Name)}
		if len(e.Args) == 1 {
			b.namespace, _ = stringLit(e.Args[0])
		}
		return b, true
	}
	return binding{}, false
}

func (a *analyzer) bind(lhs, rhs ast.Expr) {
	id, ok := lhs.(*ast.Ident)
	if !ok || id.Obj == nil {
		return
	}
	if b, ok := a.client(rhs); ok {
		a.bindings[id.Obj] = b
		a.defs[id] = true
	}
}

func (a *analyzer) add(n ast.Node, acc access, namespace string) {
	u := use{access: acc, namespace: namespace, pos: a.pos(n), fn: a.fn, inDisruptiveNode: a.inDisruptiveNode(), inGuardedFn: a.guarded}
	u.file = a.fset.Position(n.Pos()).Filename
	a.uses = append(a.uses, u)
}

func (a *analyzer) call(c *ast.CallExpr) {
	if listWatchFuncs[calleeName(c)] && len(c.Args) >= 2 {
		if b, ok := a.client(c.Args[0]); ok {
			res, isLit := stringLit(c.Args[1])
			if !b.rest || b.discovery || !isLit {
				a.problem(c, "a list-watch of a client or resource this test cannot read")
				return
			}
			ns := ""
			if len(c.Args) >= 3 {
				ns, _ = stringLit(c.Args[2])
			}
			a.add(c, access{group: b.group, resource: res, verb: "list"}, ns)
			a.add(c, access{group: b.group, resource: res, verb: "watch"}, ns)
			return
		}
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	if inner, ok := s.X.(*ast.CallExpr); ok && isDiscovery(inner) && s.Sel.Name != "RESTClient" {
		a.consumed[inner] = true
		if s.Sel.Name == "ServerVersion" {
			a.add(c, access{url: "/version", verb: "get"}, "")
		} else {
			a.problem(c, "Discovery().%s: a discovery request this test does not map", s.Sel.Name)
		}
		return
	}
	b, ok := a.client(s.X)
	if !ok {
		return
	}
	if b.rest {
		a.restRequest(c, b, s.Sel.Name)
		return
	}
	verb, sub, ok := typedVerb(b.resource, s.Sel.Name)
	if !ok {
		a.problem(c, "%s.%s: a typed client method this test does not map", b.resource, s.Sel.Name)
		return
	}
	res := b.resource
	if s.Sel.Name == "Patch" && len(c.Args) > 5 {
		var subs []string
		for _, arg := range c.Args[5:] {
			lit, ok := stringLit(arg)
			if !ok {
				a.problem(c, "a Patch of %s whose subresource is not a string literal", b.resource)
				return
			}
			subs = append(subs, lit)
		}
		sub = strings.Join(subs, "/")
	}
	if sub != "" {
		res += "/" + sub
	}
	a.add(c, access{group: b.group, resource: res, verb: verb}, b.namespace)
}

// restRequest reads the request chain a RESTClient's Get(), Post()... call c starts
// (the calls made on its result, as the stack holds them).
func (a *analyzer) restRequest(c *ast.CallExpr, b binding, method string) {
	verb, ok := restVerbs[method]
	if !ok {
		a.problem(c, "RESTClient().%s: not a request this test reads", method)
		return
	}
	var resource, sub, path, ns string
	named, watch := false, false
	cur := ast.Node(c)
	for i := len(a.stack) - 2; i >= 1; i -= 2 {
		s, ok := a.stack[i].(*ast.SelectorExpr)
		if !ok || s.X != cur {
			break
		}
		next, ok := a.stack[i-1].(*ast.CallExpr)
		if !ok || next.Fun != s {
			break
		}
		lits := func() ([]string, bool) {
			var out []string
			for _, arg := range next.Args {
				l, ok := stringLit(arg)
				if !ok {
					return nil, false
				}
				out = append(out, l)
			}
			return out, true
		}
		switch s.Sel.Name {
		case "Resource", "SubResource", "AbsPath":
			l, ok := lits()
			if !ok || len(l) == 0 {
				a.problem(next, "RESTClient request whose %s is not a string literal", s.Sel.Name)
				return
			}
			switch s.Sel.Name {
			case "Resource":
				resource = l[0]
			case "SubResource":
				sub = strings.Join(l, "/")
			case "AbsPath":
				path = "/" + strings.TrimPrefix(strings.Join(l, "/"), "/")
			}
		case "Name":
			named = true
		case "Namespace":
			if len(next.Args) == 1 {
				ns, _ = stringLit(next.Args[0])
			}
		case "Watch":
			watch = true
		}
		cur = next
	}
	switch {
	case path != "" && resource == "" && !strings.HasPrefix(path, "/api"):
		a.add(c, access{url: path, verb: verb}, "")
	case resource != "" && path == "" && !b.discovery:
		switch {
		case watch:
			verb = "watch"
		case verb == "get" && !named:
			verb = "list"
		case verb == "delete" && !named:
			verb = "deletecollection"
		}
		if sub != "" {
			resource += "/" + sub
		}
		a.add(c, access{group: b.group, resource: resource, verb: verb}, ns)
		// remotecommand's WebSocket executor (suite.Env.Exec) opens exec, attach and
		// portforward with a GET, which API servers before the KEP-4006 authorization
		// change take as verb get: the SPDY fallback's POST is a create.
		if verb == "create" && b.group == "" && slices.Contains([]string{"pods/exec", "pods/attach", "pods/portforward"}, resource) {
			a.add(c, access{group: b.group, resource: resource, verb: "get"}, ns)
		}
	default:
		a.problem(c, "a RESTClient request this test cannot map (resource %q, path %q)", resource, path)
	}
}

func stringLit(e ast.Expr) (string, bool) {
	l, ok := e.(*ast.BasicLit)
	if !ok || l.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(l.Value)
	return s, err == nil
}

func exprString(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Ident:
		return n.Name
	case *ast.CallExpr:
		return exprString(n.Fun) + "()"
	case *ast.SelectorExpr:
		return exprString(n.X) + "." + n.Sel.Name
	}
	return fmt.Sprintf("%T", n)
}
