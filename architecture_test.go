// Package clearvest_test guards the shape of the code base rather than its behaviour.
//
// The import rules below are the layering of docs/architecture.md written down where the build
// enforces them: a review can miss one wrong import, but it compounds (the domain that reaches for the
// database once is no longer pure, and every later shortcut looks legitimate), so it must fail
// the build the day it is written.
package clearvest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "clearvest"

// group is one row of the layer table. Layered groups may import their own layer or lower;
// support groups sit beside the layers (any layer from 1 up may use them, the domain may not)
// and may lean only on the domain, the standard library and third-party code.
type group struct {
	name     string
	patterns []string // module-relative: "ui" is exactly that package, "domain/..." the tree
	layer    int      // for layered groups
	support  bool
	// noOwnImports: the group may import no package of this module at all.
	noOwnImports bool
}

// groups is the architecture, bottom up: arrows point down, from the binary to the domain.
var groups = []group{
	// Business rules: aggregates, events, money, reference data. Pure Go, no I/O.
	{name: "domain", patterns: []string{"domain/..."}, layer: 0},
	// pgtest is imported by tests of every layer, the domain's included, so anything of ours it
	// imported would become reachable from everywhere.
	{name: "pgtest", patterns: []string{"platform/pgtest"}, layer: 1, noOwnImports: true},
	// Infrastructure adapters: embedded PostgreSQL, migrations, configuration, mail, files,
	// authentication primitives. They know the domain, not the event store or the application.
	{name: "platform", patterns: []string{"platform/..."}, layer: 1},
	{name: "eventstore", patterns: []string{"eventstore/..."}, layer: 2},
	{name: "projections", patterns: []string{"projections/..."}, layer: 3},
	// The application layer: the command runner and one service per capability.
	{name: "app", patterns: []string{"app/..."}, layer: 4},
	{name: "api", patterns: []string{"api/..."}, layer: 5},
	{name: "cmd", patterns: []string{"cmd/..."}, layer: 6},

	{name: "ui", patterns: []string{"ui"}, support: true},
	// The operator's default site content, embedded like the UI.
	{name: "content", patterns: []string{"content"}, support: true, noOwnImports: true},
	{name: "scripts", patterns: []string{"scripts/..."}, support: true},
	// This file's own package, at the root of the module.
	{name: "architecture test", patterns: []string{""}, support: true, noOwnImports: true},
}

// testHelpers may be imported by any test, whatever its layer: they exist to be the fixtures of
// other packages' tests.
var testHelpers = []string{
	module + "/platform/pgtest",
	module + "/eventstore/eventstoretest",
	module + "/eventstore/memstore",
	// The write side wired as the application wires it, for read-model tests.
	module + "/app/apptest",
}

// domainForbiddenStd are standard packages (with their sub-packages) that mean I/O, ambient
// configuration or logging. The domain stays pure so that every rule is a function of its inputs
// and a replay gives the same answer years later. (Reading the clock cannot be caught here; the
// domain takes time as an argument by convention.)
var domainForbiddenStd = []string{"database/sql", "net/http", "os", "log"}

// domainThirdParty is the only non-standard code the domain may use, each a pure codec with no
// I/O: money needs exact decimals, and withdrawal addresses are checked with the reference
// Bitcoin codecs (base58check, bech32/bech32m) and Ethereum's Keccak-256 (EIP-55) rather than
// hand-written copies. Packages are listed one by one, not by module, so that the rest of
// btcutil (which talks to nodes) stays out of reach.
var domainThirdParty = []string{
	"github.com/shopspring/decimal",
	"github.com/btcsuite/btcd/btcutil/base58",
	"github.com/btcsuite/btcd/btcutil/bech32",
	"golang.org/x/crypto/sha3",
}

// pkg is what the rules need to know about one package, as `go list -json` reports it.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string // from _test.go files in the package itself
	XTestImports []string // from _test.go files of the external package_test
	Error        *struct{ Err string }
}

// under reports whether path is the module-relative pattern or, for "x/...", inside x.
func under(path, pattern string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// ours reports whether an import path belongs to this module. npm installs packages that carry
// Go files of their own under ui/node_modules; the go command sees them as part of the module,
// but they are third-party code that nothing of ours imports.
func ours(path string) bool {
	if path != module && !strings.HasPrefix(path, module+"/") {
		return false
	}
	return !strings.Contains(path+"/", "/node_modules/")
}

func classify(path string) (group, bool) {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	for _, g := range groups {
		for _, p := range g.patterns {
			if under(rel, p) {
				return g, true
			}
		}
	}
	return group{}, false
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func inAny(path string, bases []string) bool {
	return slices.ContainsFunc(bases, func(b string) bool { return under(path, b+"/...") })
}

func (g group) String() string {
	if g.support {
		return fmt.Sprintf("%s (support package)", g.name)
	}
	return fmt.Sprintf("%s (layer %d)", g.name, g.layer)
}

// violations applies the layer table to a set of packages. It is pure so that the rules
// themselves can be tested with invented packages.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		if !ours(p.ImportPath) {
			continue
		}
		from, ok := classify(p.ImportPath)
		if !ok {
			out = append(out, fmt.Sprintf("%s belongs to no layer: add it to the layer table in architecture_test.go", p.ImportPath))
			continue
		}
		for _, src := range []struct {
			where   string
			imports []string
		}{
			{"", p.Imports},
			{" in its _test.go files", p.TestImports},
			{" in its external _test package", p.XTestImports},
		} {
			test := src.where != ""
			for _, imp := range src.imports {
				if why := check(p.ImportPath, from, imp, test); why != "" {
					out = append(out, fmt.Sprintf("%s imports %s%s: %s", p.ImportPath, imp, src.where, why))
				}
			}
		}
	}
	return out
}

// check returns why importer (of group from) may not import imp, or "" when it may.
func check(importer string, from group, imp string, test bool) string {
	if !ours(imp) {
		if from.name != "domain" {
			return ""
		}
		if isStd(imp) {
			if inAny(imp, domainForbiddenStd) {
				return fmt.Sprintf("domain must stay free of I/O and logging (no %s)", strings.Join(domainForbiddenStd, ", "))
			}
			return ""
		}
		if !inAny(imp, domainThirdParty) {
			return fmt.Sprintf("domain may use only the standard library and %s", strings.Join(domainThirdParty, ", "))
		}
		return ""
	}
	if imp == importer || (test && slices.Contains(testHelpers, imp)) {
		return ""
	}
	to, ok := classify(imp)
	if !ok {
		return "the imported package belongs to no layer (reported separately)"
	}
	switch {
	case from.noOwnImports:
		return fmt.Sprintf("%s may import no %s package", from, module)
	case from.support && (to.support || to.layer > 0):
		return fmt.Sprintf("%s may import only domain, the standard library and third-party packages, not %s", from, to)
	case from.support:
		return ""
	case to.support && from.layer == 0:
		return fmt.Sprintf("%s may not import %s", from, to)
	case to.support:
		return ""
	case to.layer > from.layer:
		return fmt.Sprintf("%s may not import the higher %s", from, to)
	}
	return ""
}

// listPackages asks the go command for every package of the module with the imports of its
// production and test files. Files excluded by build constraints on this platform are not seen.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImports(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.Error != nil && ours(p.ImportPath) {
			t.Errorf("%s cannot be loaded, so its imports are unchecked: %s", p.ImportPath, p.Error.Err)
		}
		if g, ok := classify(p.ImportPath); ok && ours(p.ImportPath) {
			seen[g.name] = true
		}
	}
	// A loader that silently returned nothing would pass every rule.
	for _, name := range []string{"domain", "eventstore", "api", "cmd"} {
		if !seen[name] {
			t.Fatalf("go list found no %s packages; the loader is broken", name)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

func TestViolationsRules(t *testing.T) {
	t.Parallel()
	m := func(rel string) string {
		if rel == "" {
			return module
		}
		return module + "/" + rel
	}
	tests := []struct {
		name string
		pkgs []pkg
		want []string // substrings, one per expected violation, in order
	}{
		{
			name: "a clean module",
			pkgs: []pkg{
				{ImportPath: m("domain/money"), Imports: []string{"encoding/json", "github.com/shopspring/decimal", m("domain/domainerr")}},
				{ImportPath: m("platform/mail"), Imports: []string{m("platform/pgmigrate"), m("domain/clock")}},
				{ImportPath: m("eventstore"), Imports: []string{m("domain/aggregate"), "github.com/google/uuid"}},
				{ImportPath: m("eventstore/postgres"), Imports: []string{m("eventstore"), m("platform/pgmigrate")},
					XTestImports: []string{m("eventstore/postgres"), m("platform/pgtest"), m("eventstore/eventstoretest")}},
				{ImportPath: m("projections"), Imports: []string{m("eventstore"), m("platform/pgmigrate")}},
				{ImportPath: m("projections/users"), XTestImports: []string{m("app/apptest")}},
				{ImportPath: m("app/command"), Imports: []string{m("eventstore"), m("domain/aggregate")}, XTestImports: []string{m("eventstore/memstore")}},
				{ImportPath: m("app/accounts"), Imports: []string{m("app/command"), m("projections/users"), m("platform/auth/session")}},
				{ImportPath: m("api"), Imports: []string{m("api/middleware"), m("app/accounts"), m("platform/config")}},
				{ImportPath: m("cmd/clearvest"), Imports: []string{m("api"), m("platform/pgembed"), m("ui"), "os"}},
				{ImportPath: m("scripts/demo"), Imports: []string{m("domain/money")}},
				{ImportPath: m("domain/aggregate"), XTestImports: []string{m("platform/pgtest"), "testing"}},
				{ImportPath: m(""), XTestImports: []string{"os/exec", "testing"}},
				{ImportPath: m("ui/node_modules/flatted/golang/pkg/flatted"), Imports: []string{"os", m("api")}},
			},
		},
		{
			name: "domain imports the event store",
			pkgs: []pkg{{ImportPath: m("domain/account"), Imports: []string{m("eventstore")}}},
			want: []string{"clearvest/domain/account imports clearvest/eventstore: domain (layer 0) may not import the higher eventstore (layer 2)"},
		},
		{
			name: "domain does I/O",
			pkgs: []pkg{{ImportPath: m("domain/account"), Imports: []string{"database/sql", "net/http/httptest", "log/slog", "os", "net/url"}}},
			want: []string{"imports database/sql: domain must stay free", "imports net/http/httptest: domain", "imports log/slog: domain", "imports os: domain"},
		},
		{
			name: "domain uses an unapproved library",
			pkgs: []pkg{{ImportPath: m("domain/money"), Imports: []string{"github.com/shopspring/decimal", "github.com/google/uuid"}}},
			want: []string{"imports github.com/google/uuid: domain may use only the standard library and github.com/shopspring/decimal"},
		},
		{
			name: "domain uses the address codecs but not the rest of their module",
			pkgs: []pkg{{ImportPath: m("domain/payout"), Imports: []string{
				"github.com/btcsuite/btcd/btcutil/base58", "github.com/btcsuite/btcd/btcutil/bech32", "golang.org/x/crypto/sha3",
				"github.com/btcsuite/btcd/btcutil", "golang.org/x/crypto/ssh",
			}}},
			want: []string{"imports github.com/btcsuite/btcd/btcutil: domain may use only", "imports golang.org/x/crypto/ssh: domain may use only"},
		},
		{
			name: "domain uses an infrastructure adapter",
			pkgs: []pkg{{ImportPath: m("domain/money"), Imports: []string{m("platform/config")}}},
			want: []string{"domain (layer 0) may not import the higher platform (layer 1)"},
		},
		{
			name: "an adapter reaches into the event store",
			pkgs: []pkg{{ImportPath: m("platform/mail"), Imports: []string{m("eventstore")}}},
			want: []string{"clearvest/platform/mail imports clearvest/eventstore: platform (layer 1) may not import the higher eventstore (layer 2)"},
		},
		{
			name: "projections reach up into the application",
			pkgs: []pkg{{ImportPath: m("projections/ledger"), Imports: []string{m("app/command")}}},
			want: []string{"clearvest/projections/ledger imports clearvest/app/command: projections (layer 3) may not import the higher app (layer 4)"},
		},
		{
			name: "the application reaches up into the API",
			pkgs: []pkg{{ImportPath: m("app/money"), Imports: []string{m("api/httperr")}}},
			want: []string{"clearvest/app/money imports clearvest/api/httperr: app (layer 4) may not import the higher api (layer 5)"},
		},
		{
			name: "a violation in a test file counts",
			pkgs: []pkg{{ImportPath: m("eventstore"), TestImports: []string{m("app/command")}}},
			want: []string{"clearvest/eventstore imports clearvest/app/command in its _test.go files: eventstore (layer 2) may not import the higher app (layer 4)"},
		},
		{
			name: "an external test package is checked too",
			pkgs: []pkg{{ImportPath: m("api"), XTestImports: []string{m("cmd/clearvest")}}},
			want: []string{"clearvest/api imports clearvest/cmd/clearvest in its external _test package: api (layer 5) may not import the higher cmd (layer 6)"},
		},
		{
			name: "test helpers are allowed only in tests",
			pkgs: []pkg{{ImportPath: m("projections/users"), Imports: []string{m("app/apptest")}, XTestImports: []string{m("app/apptest")}}},
			want: []string{"clearvest/projections/users imports clearvest/app/apptest: projections (layer 3) may not import the higher app (layer 4)"},
		},
		{
			name: "support packages import only the domain",
			pkgs: []pkg{
				{ImportPath: m("ui"), Imports: []string{m("platform/config"), m("domain/clock")}},
				{ImportPath: m("scripts/bench"), Imports: []string{m("eventstore")}},
			},
			want: []string{
				"clearvest/ui imports clearvest/platform/config: ui (support package) may import only domain, the standard library and third-party packages, not platform (layer 1)",
				"clearvest/scripts/bench imports clearvest/eventstore: scripts (support package) may import only domain",
			},
		},
		{
			name: "pgtest imports nothing of ours",
			pkgs: []pkg{{ImportPath: m("platform/pgtest"), Imports: []string{m("domain/clock"), "github.com/jackc/pgx/v5"}}},
			want: []string{"clearvest/platform/pgtest imports clearvest/domain/clock: pgtest (layer 1) may import no clearvest package"},
		},
		{
			name: "a package outside the table",
			pkgs: []pkg{{ImportPath: m("unlisted")}, {ImportPath: m("api"), Imports: []string{m("unlisted")}}},
			want: []string{
				"clearvest/unlisted belongs to no layer: add it to the layer table",
				"clearvest/api imports clearvest/unlisted: the imported package belongs to no layer",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := violations(tc.pkgs)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d violations, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("violation %d:\n got  %s\n want it to contain %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}
