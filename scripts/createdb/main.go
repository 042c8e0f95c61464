// Command createdb creates (or with -drop, removes) a database on the server of an admin URL,
// so scripts get a fresh database without needing psql on the machine.
//
//	go run ./scripts/createdb -name NAME ADMIN_URL        prints the new database's URL
//	go run ./scripts/createdb -drop -name NAME ADMIN_URL
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
)

var validName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "createdb: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	name := flag.String("name", "", "database name (lower case letters, digits, _)")
	drop := flag.Bool("drop", false, "drop the database instead, disconnecting its sessions")
	flag.Parse()
	if flag.NArg() != 1 || !validName.MatchString(*name) {
		flag.Usage()
		return errors.New("want -name NAME (lower case letters, digits, _) and one admin URL")
	}
	admin, err := url.Parse(flag.Arg(0))
	if err != nil || (admin.Scheme != "postgres" && admin.Scheme != "postgresql") {
		return errors.New("the admin URL must be a postgres:// URL")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())

	ident := pgx.Identifier{*name}.Sanitize()
	if *drop {
		_, err := conn.Exec(ctx, "drop database if exists "+ident+" with (force)")
		return err
	}
	if _, err := conn.Exec(ctx, "create database "+ident); err != nil {
		return err
	}
	u := *admin
	u.Path = "/" + *name
	u.RawPath = ""
	fmt.Println(u.String())
	return nil
}
