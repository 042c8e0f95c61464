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
