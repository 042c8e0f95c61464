// Package pgtest gives each test its own empty PostgreSQL database on a real server, so tests run
// in parallel without sharing state. The server comes from TEST_DATABASE_URL (make test starts an
// embedded cluster and sets it when the variable is missing).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// NewDatabase creates a fresh database, registers its removal, and returns its URL.
func NewDatabase(t testing.TB) string {
	t.Helper()
	url, err := create(t, testServer(t), "")
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	return url
}

// server is the PostgreSQL server of TEST_DATABASE_URL.
type server struct {
	url *url.URL
	cfg *pgx.ConnConfig
}

func testServer(t testing.TB) server {
	t.Helper()
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		t.Fatal("TEST_DATABASE_URL is not set: run `make test`, or point it at a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("TEST_DATABASE_URL must be a postgres:// URL")
	}
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	return server{url: u, cfg: cfg}
}

// databaseURL is the URL of the server's database name.
func (s server) databaseURL(name string) string {
	u := *s.url
	u.Path = "/" + name
	return u.String()
}

// create makes a database, a copy of template when it is not empty, registers its removal and
// returns its URL.
func create(t testing.TB, srv server, template string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, srv.cfg)
	if err != nil {
		return "", fmt.Errorf("connect to TEST_DATABASE_URL: %w", err)
	}
	defer conn.Close(ctx)
	name := randomName()
	sql := "CREATE DATABASE " + name
	if template != "" {
		sql += " TEMPLATE " + template
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		return "", err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.ConnectConfig(ctx, srv.cfg)
		if err != nil {
			t.Logf("drop test database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return srv.databaseURL(name), nil
}

// randomName is a test database's name.
func randomName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "cvtest_" + hex.EncodeToString(b)
}

// NewPool creates a fresh database and a pool on it, closed when the test ends.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	url := NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}
