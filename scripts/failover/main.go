// Command failover is the client of the load-balancer test (docs/operations.md, "Behind a load
// balancer"): signed-in investors send deposit requests, each with its own Idempotency-Key,
// through a load balancer to several serve processes, while one process is killed with SIGKILL.
// A request that failed on the way (the connection broke, the balancer answered 502/503/504, or
// the key's first request is still marked running) is sent again with the same key and body
// until it is answered. Afterwards every key is sent once more and must be answered with its
// first result, and the database must hold exactly one deposit per answered key: nothing lost,
// nothing doubled.
//
//	failover -url LB_URL -tokens FILE -db DATABASE_URL [-duration 8s] [-kill-pid PID -kill-after 3s]
//
// FILE holds "TOKEN USER_ID" lines (scripts/loadgen register -verify).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

type investor struct{ token, userID string }

// answered is one key's first answer.
type answered struct {
	user, key, body, transactionID string
}

type stats struct {
	mu       sync.Mutex
	answered []answered
	retries  int
	reasons  map[string]int
}

func main() {
	base := flag.String("url", "", "the load balancer's base URL")
	tokens := flag.String("tokens", "", "file of TOKEN USER_ID lines")
	db := flag.String("db", "", "the servers' database, to count what was recorded")
	duration := flag.Duration("duration", 8*time.Second, "how long to send new requests")
	killPID := flag.Int("kill-pid", 0, "a serve process to kill with SIGKILL during the run")
	killAfter := flag.Duration("kill-after", 3*time.Second, "when to kill it")
	flag.Parse()
	if err := run(*base, *tokens, *db, *duration, *killPID, *killAfter); err != nil {
		fmt.Fprintln(os.Stderr, "failover:", err)
		os.Exit(1)
	}
}

func run(base, tokensFile, dbURL string, duration time.Duration, killPID int, killAfter time.Duration) error {
	if base == "" || tokensFile == "" || dbURL == "" {
		return errors.New("-url, -tokens and -db are required")
	}
	investors, err := readTokens(tokensFile)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 20 * time.Second}
	st := &stats{reasons: map[string]int{}}
	stop := time.Now().Add(duration)
	killed := make(chan error, 1)
	if killPID > 0 {
		go func() {
			time.Sleep(killAfter)
			killed <- syscall.Kill(killPID, syscall.SIGKILL)
		}()
	} else {
		killed <- nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(investors))
	for _, inv := range investors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(stop); n++ {
				key := rand.Text()
				body := fmt.Sprintf(`{"amount":"%d.%02d","asset":"USDT","network":"TRC20"}`, 10+n%90, n%100)
				id, err := send(client, base, inv, key, body, st)
				if err != nil {
					errs <- err
					return
				}
				st.mu.Lock()
				st.answered = append(st.answered, answered{user: inv.userID, key: key, body: body, transactionID: id})
				st.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	if err := <-killed; err != nil {
		return fmt.Errorf("kill %d: %w", killPID, err)
	}

	// Every key again: its first result, whichever process answers now.
	byUser := map[string]int{}
	seen := map[string]bool{}
	for _, a := range st.answered {
		inv := investor{userID: a.user}
		for _, i := range investors {
			if i.userID == a.user {
				inv = i
			}
		}
		id, err := send(client, base, inv, a.key, a.body, st)
		if err != nil {
			return err
		}
		if id != a.transactionID {
			return fmt.Errorf("key %s was answered %s first and %s on retry", a.key, a.transactionID, id)
		}
		if seen[id] {
			return fmt.Errorf("deposit %s answered two keys", id)
		}
		seen[id] = true
		byUser[a.user]++
	}

	// The database holds exactly one deposit per answered key, no more.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, inv := range investors {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'account.deposit_requested'`,
			"account-"+inv.userID).Scan(&n); err != nil {
			return err
		}
		if n != byUser[inv.userID] {
			return fmt.Errorf("investor %s: %d deposits recorded, %d keys answered", inv.userID, n, byUser[inv.userID])
		}
	}
	fmt.Printf("failover: %d requests answered by %d investors, each once in the database and with its first result on retry; %d sends retried (%s)\n",
		len(st.answered), len(investors), st.retries, reasons(st.reasons))
	return nil
}

// send posts body with key until it is answered: a broken connection, a 502/503/504 from the
// balancer and a 409 for a key whose first request is still marked running are sent again (for
// up to a minute, the longest a dead process's claim can hold a key); anything else but 200 is
// an error.
func send(client *http.Client, base string, inv investor, key, body string, st *stats) (string, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		req, err := http.NewRequest(http.MethodPost, base+"/api/payments/create", strings.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+inv.token)
		req.Header.Set("Idempotency-Key", key)
		res, err := client.Do(req)
		var reason string
		if err != nil {
			reason = "connection"
		} else {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case res.StatusCode == http.StatusOK:
				var d struct {
					TransactionID string `json:"transactionId"`
				}
				if err := json.Unmarshal(b, &d); err != nil || d.TransactionID == "" {
					return "", fmt.Errorf("key %s: answer %s", key, b)
				}
				return d.TransactionID, nil
			case res.StatusCode == http.StatusBadGateway, res.StatusCode == http.StatusServiceUnavailable, res.StatusCode == http.StatusGatewayTimeout:
				reason = fmt.Sprint(res.StatusCode)
			case res.StatusCode == http.StatusConflict && bytes.Contains(bytes.ToLower(b), []byte("still")):
				reason = "409 running"
			default:
				return "", fmt.Errorf("key %s: status %d: %s", key, res.StatusCode, b)
			}
		}
		st.mu.Lock()
		st.retries++
		st.reasons[reason]++
		st.mu.Unlock()
		if time.Now().After(deadline) {
			return "", fmt.Errorf("key %s: not answered within a minute (last: %s)", key, reason)
		}
		time.Sleep(100 * time.Millisecond) // a client's back-off before sending again
	}
}

func reasons(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s: %d", k, v))
	}
	return strings.Join(parts, ", ")
}

func readTokens(path string) ([]investor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []investor
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 {
			out = append(out, investor{token: fields[0], userID: fields[1]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no TOKEN USER_ID lines", path)
	}
	return out, sc.Err()
}
