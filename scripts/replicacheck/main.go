// Command replicacheck is the client of scripts/replica-check (docs/operations.md, "Read
// replicas"). It talks to one serve process whose reads may go to a hot standby, and reads the
// X-Clearvest-Read-From header that says which database served each read.
//
//	replicacheck ryw  -url URL -want replica|primary [-count 20]
//	replicacheck load -url URL [-workers 8] [-duration 6s] -then 'COMMAND' [-then-after 2s]
//
// ryw registers an investor and then, count times, renames them (a command) and reads them back
// with the command's X-Clearvest-Position: every read must show the new name, must not be marked
// stale, and must have been served by want; an unpositioned read must be served by want too.
//
// load registers one investor per worker; the workers read their own user and the public plan
// catalogue without pause for the duration, while COMMAND (run by bash) stops something after
// then-after. Every read must succeed. It fails unless the replica served reads before COMMAND
// and the primary served every read that started a second after it.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
)

var client = &http.Client{Timeout: 15 * time.Second}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: replicacheck ryw|load -url URL ...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	base := fs.String("url", "", "the server's base URL")
	want := fs.String("want", "replica", "ryw: which database must serve the reads")
	count := fs.Int("count", 20, "ryw: commands, each read back")
	unpositioned := fs.Bool("unpositioned", true, "ryw: then check that a read without a position is served by -want too")
	workers := fs.Int("workers", 8, "load: concurrent readers")
	duration := fs.Duration("duration", 6*time.Second, "load: how long to read")
	then := fs.String("then", "", "load: a bash command to run during the load")
	thenAfter := fs.Duration("then-after", 2*time.Second, "load: when to run it")
	_ = fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "ryw":
		err = ryw(*base, *want, *count, *unpositioned)
	case "load":
		err = load(*base, *workers, *duration, *then, *thenAfter)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicacheck:", err)
		os.Exit(1)
	}
}

type answer struct {
	status   int
	body     []byte
	position string
	from     string
	stale    bool
}

func call(method, url, token, position string, body any) (answer, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", randomHex(16))
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if position != "" {
		req.Header.Set("X-Clearvest-Position", position)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: resp.StatusCode, body: b, position: resp.Header.Get("X-Clearvest-Position"),
		from: resp.Header.Get("X-Clearvest-Read-From"), stale: resp.Header.Get("X-Clearvest-Stale") == "true"}
	if a.status/100 != 2 {
		return a, fmt.Errorf("%s %s: %d %s", method, url, a.status, bytes.TrimSpace(b))
	}
	return a, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// register signs up a new investor and returns their token and the command's position.
func register(base string) (token, position string, err error) {
	a, err := call(http.MethodPost, base+"/api/users/register", "", "", map[string]any{
		"name": "Replica Check", "email": "replica-" + randomHex(6) + "@example.com", "password": "replica check passphrase",
		"phone": "+447700900123", "country": "GB", "acceptTerms": true,
	})
	if err != nil {
		return "", "", err
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || out.Token == "" || a.position == "" {
		return "", "", fmt.Errorf("register answered without a token or a position: %s", a.body)
	}
	return out.Token, a.position, nil
}

func ryw(base, want string, count int, unpositioned bool) error {
	token, position, err := register(base)
	if err != nil {
		return err
	}
	var waits []time.Duration
	for i := range count {
		name := fmt.Sprintf("Replica Check %d", i+1)
		a, err := call(http.MethodPatch, base+"/api/users/updateUser", token, "", map[string]any{"name": name})
		if err != nil {
			return err
		}
		if a.position == "" {
			return fmt.Errorf("updateUser answered without a position")
		}
		position = a.position
		start := time.Now()
		a, err = call(http.MethodGet, base+"/api/users/getUser", token, position, nil)
		if err != nil {
			return err
		}
		waits = append(waits, time.Since(start))
		var u struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(a.body, &u); err != nil {
			return fmt.Errorf("getUser: %v", err)
		}
		switch {
		case a.stale:
			return fmt.Errorf("read %d at position %s was marked stale", i+1, position)
		case u.Name != name:
			return fmt.Errorf("read %d at position %s shows the name %q, not the %q just written (served by %s)", i+1, position, u.Name, name, a.from)
		case a.from != want:
			return fmt.Errorf("read %d at position %s was served by %q, want %q", i+1, position, a.from, want)
		}
	}
	if unpositioned {
		a, err := call(http.MethodGet, base+"/api/users/getUser", token, "", nil)
		if err != nil {
			return err
		}
		if a.from != want {
			return fmt.Errorf("an unpositioned read was served by %q, want %q", a.from, want)
		}
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	fmt.Printf("    %d commands, each read back at its position from the %s: the write seen every time, none stale; read latency median %s, max %s\n",
		count, want, waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond))
	return nil
}

type tally struct {
	mu                       sync.Mutex
	reads, failed            int
	before, afterLate, after map[string]int // served by, per period
	firstErr                 error
}

func load(base string, workers int, duration time.Duration, then string, thenAfter time.Duration) error {
	tokens := make([]string, workers)
	for i := range tokens {
		t, _, err := register(base)
		if err != nil {
			return err
		}
		tokens[i] = t
	}
	t := &tally{before: map[string]int{}, after: map[string]int{}, afterLate: map[string]int{}}
	start := time.Now()
	var actedAt time.Time
	acted := make(chan error, 1)
	go func() {
		time.Sleep(thenAfter) // the moment of the action is part of the scenario, not a synchronisation
		actedAt = time.Now()
		out, err := exec.Command("bash", "-c", then).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%s: %v: %s", then, err, out)
		}
		acted <- err
	}()
	actionAt := start.Add(thenAfter)
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				url, token := base+"/api/users/getUser", tokens[w]
				if i%2 == 1 {
					url, token = base+"/api/invest/plans", ""
				}
				began := time.Now()
				a, err := call(http.MethodGet, url, token, "", nil)
				t.mu.Lock()
				t.reads++
				if err != nil {
					t.failed++
					if t.firstErr == nil {
						t.firstErr = err
					}
				}
				switch {
				case began.Before(actionAt):
					t.before[a.from]++
				case began.Before(actionAt.Add(time.Second)):
					t.after[a.from]++
				default:
					t.afterLate[a.from]++
				}
				t.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := <-acted; err != nil {
		return err
	}
	fmt.Printf("    %d reads by %d readers in %s, %d failed; the action ran %s in\n",
		t.reads, workers, duration, t.failed, actedAt.Sub(start).Round(time.Millisecond))
	fmt.Printf("    served before it: %v; in the second after: %v; later: %v\n", t.before, t.after, t.afterLate)
	switch {
	case t.failed > 0:
		return fmt.Errorf("%d reads failed; the first: %v", t.failed, t.firstErr)
	case t.before["replica"] == 0:
		return errors.New("the replica served no read before the action")
	case t.afterLate["replica"] > 0 || t.afterLate["primary"] == 0:
		return fmt.Errorf("a second after the action the reads were served by %v, want the primary only", t.afterLate)
	}
	return nil
}
