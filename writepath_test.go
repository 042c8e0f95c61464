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

// transactional are the functions that may run a command in a transaction it holds open across
// round trips (command.Update, Runner.InTx), each with the reason it cannot be a command.Submit,
// whose one round trip sends everything the command writes once it has decided. A function
// holding such a transaction must not ask the pool for another connection; Submit's decide has
// no connection to hold. The list only shrinks: an entry that no longer needs it fails too.
var transactional = map[string]string{}

// TestTransactionsOnlyWhereListed keeps command.Update and Runner.InTx to the functions listed
// in transactional (docs/architecture.md, "The write path").
func TestTransactionsOnlyWhereListed(t *testing.T) {
	t.Parallel()
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
	}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, p := range pkgs {
		if matches(module+"/app/command", p.PkgPath) || matches(module+"/scripts/...", p.PkgPath) {
			continue // the runner itself, and its benchmarks
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				name := strings.TrimPrefix(p.PkgPath, module+"/") + "." + fn.Name.Name
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					obj := p.TypesInfo.Uses[sel.Sel]
					if s := p.TypesInfo.Selections[sel]; s != nil {
						obj = s.Obj()
					}
					fun, ok := obj.(*types.Func)
					if !ok || fun.Pkg() == nil || fun.Pkg().Path() != module+"/app/command" {
						return true
					}
					if fun.Name() != "Update" && fun.Name() != "InTx" {
						return true
					}
					found[name] = true
					if _, listed := transactional[name]; !listed {
						t.Errorf("%s: %s runs a command with command.%s; run it with command.Submit, or list it in transactional with the reason it cannot",
							p.Fset.Position(sel.Pos()), name, fun.Name())
					}
					return true
				})
			}
		}
	}
	for name := range transactional {
		if !found[name] {
			t.Errorf("%s is listed in transactional but runs no command in a transaction: drop it from the list", name)
		}
	}
}
