package clearvest_test

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// appenders may call a store's Append or AppendTx: the command runner, which every service goes
// through, and the event store itself. Tests and their fixtures are not loaded here, so they may
// fill a log as they need.
var appenders = []string{module + "/app/command", module + "/eventstore/..."}

// TestOnlyTheRunnerAppends keeps the command runner the one write path (docs/architecture.md,
// "Commands"): a service that appended on its own would skip the runner's expected-version and
// version-gap checks, its retries and its cache.
func TestOnlyTheRunnerAppends(t *testing.T) {
	t.Parallel()
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
	}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		if slices.ContainsFunc(appenders, func(a string) bool { return matches(a, p.PkgPath) }) {
			continue
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Append" && sel.Sel.Name != "AppendTx") {
					return true
				}
				s := p.TypesInfo.Selections[sel]
				if s == nil || s.Kind() != types.MethodVal {
					return true
				}
				if owner := s.Obj().Pkg(); owner != nil && matches(module+"/eventstore/...", owner.Path()) {
					t.Errorf("%s: %s appends to the event store directly; run a command (app/command) instead",
						p.Fset.Position(call.Pos()), p.PkgPath)
				}
				return true
			})
		}
	}
}

// matches reports whether an import path is pattern, or under it when pattern ends in "/...".
func matches(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// TestTheRunnerHandsOutNoTransaction keeps every command to one round trip (docs/architecture.md,
// "The write path"): nothing app/command exports takes or gives a database transaction or
// connection, so no command can hold one while it asks the pool for another. What a command
// reads it reads before it decides; what it writes goes with its events (Submit) or alone
// (Write), as statements whose checks fail the round trip when what it read moved.
func TestTheRunnerHandsOutNoTransaction(t *testing.T) {
	t.Parallel()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, module+"/app/command")
	if err != nil {
		t.Fatal(err)
	}
	held := func(typ types.Type) string {
		s := types.TypeString(typ, nil)
		for _, db := range []string{"github.com/jackc/pgx/v5.Tx", "github.com/jackc/pgx/v5.Conn", "github.com/jackc/pgx/v5/pgxpool."} {
			if strings.Contains(s, db) {
				return s
			}
		}
		return ""
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			if s := held(obj.Type()); s != "" {
				t.Errorf("command.%s hands out a database connection or transaction (%s): run the command with Submit or Write", name, s)
			}
			named, ok := obj.Type().(*types.Named)
			if !ok {
				continue
			}
			for m := range named.Methods() {
				if !m.Exported() {
					continue
				}
				if s := held(m.Type()); s != "" {
					t.Errorf("command.%s.%s hands out a database connection or transaction (%s): run the command with Submit or Write", name, m.Name(), s)
				}
			}
			if st, ok := named.Underlying().(*types.Struct); ok {
				for f := range st.Fields() {
					if f.Exported() && held(f.Type()) != "" {
						t.Errorf("command.%s.%s is a database connection or transaction", name, f.Name())
					}
				}
			}
		}
	}
}
