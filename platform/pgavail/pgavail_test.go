package pgavail_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"clearvest/platform/pgavail"
	"clearvest/platform/pgtest"
)

func TestUnreachable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"connection refused", fmt.Errorf("acquire: %w", refused), true},
		{"connection reset", fmt.Errorf("query: %w", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"server closed mid-reply", fmt.Errorf("query: %w", io.ErrUnexpectedEOF), true},
		{"server closed between replies", fmt.Errorf("query: %w", io.EOF), true},
		{"closed connection", fmt.Errorf("commit: %w", pgconn.ErrConnClosed), true},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"starting up", fmt.Errorf("connect: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"connection exception", &pgconn.PgError{Code: "08000"}, true},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, false},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"query cancelled", &pgconn.PgError{Code: "57014"}, false},
		{"request cancelled", fmt.Errorf("query: %w", context.Canceled), false},
		{"request cancelled while the socket broke", errors.Join(context.Canceled, io.ErrUnexpectedEOF), false},
		{"no rows", pgx.ErrNoRows, false},
		{"ours", errors.New("money: could not draw a free transaction id"), false},
	}
	for _, tt := range tests {
		if got := pgavail.Unreachable(tt.err); got != tt.want {
			t.Errorf("%s: Unreachable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
		classified := pgavail.Classify(tt.err)
		_, isUnavailable := errors.AsType[*pgavail.Error](classified)
		if isUnavailable != tt.want {
			t.Errorf("%s: Classify gave %T, unavailable = %v, want %v", tt.name, classified, isUnavailable, tt.want)
		}
		if tt.err != nil && !errors.Is(classified, tt.err) {
			t.Errorf("%s: Classify lost the cause", tt.name)
		}
	}
}

// TestUnreachableRealConnects classifies what pgx itself returns for a port nobody listens on,
// a deadline that ends while connecting, and a password the server refuses; the first two are
// an outage, the last a misconfiguration.
func TestUnreachableRealConnects(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	_, err = pgx.Connect(t.Context(), fmt.Sprintf("postgres://u@127.0.0.1:%d/db?sslmode=disable&connect_timeout=2", port))
	if !pgavail.Unreachable(err) {
		t.Errorf("connect to a closed port: %v (%T) is not unreachable", err, err)
	}

	// A listener that accepts and never answers: the connect deadline ends the attempt.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn // kept open, unanswered, until the listener closes
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	_, err = pgx.Connect(t.Context(), fmt.Sprintf("postgres://u@%s/db?sslmode=disable&connect_timeout=1", silent.Addr()))
	if !pgavail.Unreachable(err) {
		t.Errorf("connect to a silent server: %v (%T) is not unreachable", err, err)
	}

	cfg, err := pgx.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = "clearvest_no_such_role"
	_, err = pgx.ConnectConfig(t.Context(), cfg)
	if err == nil || pgavail.Unreachable(err) {
		t.Errorf("connect as an unknown role: %v is unreachable, want a configuration error", err)
	}
}
