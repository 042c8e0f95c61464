package config

import (
	"fmt"
	"strings"
	"time"
)

// Environment variables of the read replicas (docs/operations.md, "Read replicas").
const (
	EnvReadDatabaseURL = "CLEARVEST_READ_DATABASE_URL"
	EnvReadMaxLag      = "CLEARVEST_READ_MAX_LAG"
)

// DefaultReadMaxLag is how far behind the primary a replica may replay and still serve reads,
// when CLEARVEST_READ_MAX_LAG is unset.
const DefaultReadMaxLag = 5 * time.Second

// Reads are the read replicas: hot standbys of DATABASE_URL that serve the read models of safe
// requests.
type Reads struct {
	// URLs are the standbys, in the order given; empty means every query goes to DATABASE_URL.
	URLs []string
	// MaxLag is the replay lag above which a standby leaves the rotation.
	MaxLag time.Duration
}

// ParseReads reads CLEARVEST_READ_DATABASE_URL (PostgreSQL URLs or key=value connection
// strings, separated by commas) and CLEARVEST_READ_MAX_LAG (a Go duration of at least 100ms).
// databaseURL is DATABASE_URL: replicas are standbys of a primary the operator runs, so they
// need one, and naming the primary itself as a replica is refused as the mistake it is.
func ParseReads(get func(string) string, databaseURL string) (Reads, error) {
	r := Reads{MaxLag: DefaultReadMaxLag}
	if s := get(EnvReadMaxLag); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 100*time.Millisecond {
			return Reads{}, fmt.Errorf("%s: %q is not a duration of at least 100ms, e.g. 5s", EnvReadMaxLag, s)
		}
		r.MaxLag = d
	}
	list := get(EnvReadDatabaseURL)
	if list == "" {
		return r, nil
	}
	if databaseURL == "" {
		return Reads{}, fmt.Errorf("%s needs %s: read replicas are standbys of a PostgreSQL server you run, not of the embedded cluster", EnvReadDatabaseURL, EnvDatabaseURL)
	}
	seen := map[string]bool{databaseURL: true}
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		source := fmt.Sprintf("%s (replica %d)", EnvReadDatabaseURL, i+1)
		if item == "" {
			return Reads{}, fmt.Errorf("%s: is empty; separate the replicas' URLs with single commas", source)
		}
		if err := checkDatabaseURLOf(source, item); err != nil {
			return Reads{}, err
		}
		if item == databaseURL {
			return Reads{}, fmt.Errorf("%s: is %s itself; list the standbys only", source, EnvDatabaseURL)
		}
		if seen[item] {
			return Reads{}, fmt.Errorf("%s: is listed twice", source)
		}
		seen[item] = true
		r.URLs = append(r.URLs, item)
	}
	return r, nil
}
