package eventstore_test

import (
	"testing"

	"clearvest/domain/account"
	"clearvest/eventstore"
)

// BenchmarkDecodeMoneyEvent is the cost of turning a stored money event back into its Go value,
// which every replay, projection rebuild and `events verify` pays once per event. The six
// events are a deposit and an investment as the command path writes them.
func BenchmarkDecodeMoneyEvent(b *testing.B) {
	r := eventstore.NewRegistry()
	account.RegisterEvents(r)
	stream := eventstore.NewStreamID(account.StreamCategory, "01a226ea-1d04-7ef1-a5b1-1272e6f0901d")
	envs := make([]eventstore.Envelope, 0, 6)
	for _, d := range []struct{ typ, data string }{
		{"account.deposit_requested", `{"at": "2025-01-19T14:00:00Z", "asset": "USDT", "amount": "168.70", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "network": "TRC20", "usdRate": "1", "depositId": "01a226ea-1d04-7ef1-a5b1-1272e6f0901d", "onChainAmount": "168.700000", "transactionId": "DEP-0000-0000"}`},
		{"account.deposit_confirmed", `{"at": "2025-01-19T15:00:00Z", "staffId": "42125484-36ae-5c56-a77f-256424634d6c", "received": "168.70", "depositId": "01a226ea-1d04-7ef1-a5b1-1272e6f0901d"}`},
		{"account.deposit_requested", `{"at": "2025-01-23T13:00:00Z", "asset": "USDT", "amount": "2911.15", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "network": "TRC20", "usdRate": "1", "depositId": "01a226ea-1d05-7009-b12e-3304c938e4f3", "onChainAmount": "2911.150000", "transactionId": "DEP-0000-0002"}`},
		{"account.deposit_confirmed", `{"at": "2025-01-23T14:00:00Z", "staffId": "42125484-36ae-5c56-a77f-256424634d6c", "received": "2911.15", "depositId": "01a226ea-1d05-7009-b12e-3304c938e4f3"}`},
		{"account.investment_requested", `{"at": "2025-01-24T07:00:00Z", "terms": {"max": "20000.00", "min": "100.00", "planId": "growth", "planName": "Growth", "termDays": 90, "termRate": "0.05", "planVersion": 1}, "amount": "2155.00", "investmentId": "01a226ea-1d05-702c-b4b1-a4e10d9b5a84"}`},
		{"account.investment_activated", `{"end": "2025-04-24T09:00:00Z", "start": "2025-01-24T09:00:00Z", "amount": "2155.00", "return": "107.75", "staffId": "42125484-36ae-5c56-a77f-256424634d6c", "investmentId": "01a226ea-1d05-702c-b4b1-a4e10d9b5a84"}`},
	} {
		envs = append(envs, eventstore.Envelope{StreamID: stream, Type: d.typ, SchemaVersion: 1, Data: []byte(d.data)})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, env := range envs {
			if _, err := r.Decode(env); err != nil {
				b.Fatal(err)
			}
		}
	}
}
