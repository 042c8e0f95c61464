package pii_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/platform/pgtest"
)

// keysUnder fills a fresh key table with n keys sealed with secret.
func keysUnder(b *testing.B, secret []byte, n int) *pgxpool.Pool {
	b.Helper()
	pool := newPool(b)
	c, err := pii.New(pool, secret)
	if err != nil {
		b.Fatal(err)
	}
	for range n {
		if _, err := c.Seal(uuid.NewString(), "x"); err != nil {
			b.Fatal(err)
		}
	}
	return pool
}

// BenchmarkRotate measures `keys rotate` per data key: each round puts 1,000 keys back under
// the old secret (not timed) and seals them all with the new one.
func BenchmarkRotate(b *testing.B) {
	const keys = 1000
	ctx := context.Background()
	secretA, secretB := bytes.Repeat([]byte{0xA}, 32), bytes.Repeat([]byte{0xB}, 32)
	pool := keysUnder(b, secretA, keys)
	if _, err := pool.Exec(ctx, `CREATE TABLE keys_under_a AS SELECT subject_id, key_sealed FROM pii_keys`); err != nil {
		b.Fatal(err)
	}
	c, err := pii.New(pool, secretB, pii.WithPreviousSecrets(secretA))
	if err != nil {
		b.Fatal(err)
	}
	cpu := pgtest.NewCPUMeter(pool)
	for b.Loop() {
		b.StopTimer()
		if _, err := pool.Exec(ctx, `UPDATE pii_keys k SET key_sealed = a.key_sealed FROM keys_under_a a WHERE a.subject_id = k.subject_id`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu.Start()
		got, err := c.Rotate(ctx)
		cpu.Stop()
		if err != nil || got.Resealed != keys {
			b.Fatalf("Rotate = %+v, %v", got, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*keys), "us/key")
	cpu.Report(b, float64(b.N*keys), "us/key")
}

// BenchmarkCheckSecret measures the start-up check on a table of 20,000 keys.
func BenchmarkCheckSecret(b *testing.B) {
	pool := keysUnder(b, secret, 20_000)
	c, err := pii.New(pool, secret)
	if err != nil {
		b.Fatal(err)
	}
	cpu := pgtest.NewCPUMeter(pool)
	cpu.Start()
	for b.Loop() {
		if err := c.CheckSecret(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, float64(b.N), "us/op")
}

// BenchmarkEncodeClientIP is what sealing the client address adds to encoding an event whose
// subject's key is cached: metadata=plain has no address, metadata=sealed has one.
func BenchmarkEncodeClientIP(b *testing.B) {
	pool := newPool(b)
	c, err := pii.New(pool, secret)
	if err != nil {
		b.Fatal(err)
	}
	reg := eventstore.NewRegistry()
	identity.RegisterEvents(reg)
	reg.SetCipher(c)
	id := uuid.NewString()
	stream := eventstore.NewStreamID(identity.StreamCategory, id)
	e := identity.PasswordChanged{Via: identity.ViaChange}
	for name, meta := range map[string]eventstore.Metadata{
		"plain":  {ActorID: id},
		"sealed": {ActorID: id, ClientIP: "203.0.113.7"},
	} {
		b.Run("metadata="+name, func(b *testing.B) {
			if _, err := reg.EncodeFor(stream, e, meta); err != nil { // the key, created and cached
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := reg.EncodeFor(stream, e, meta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
