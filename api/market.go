package api

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
)

// errMarketUnavailable answers a server wired without market data (tests of other parts).
var errMarketUnavailable = domainerr.New(domainerr.RuleBroken, "Market data is not available on this server.")

// GetMarketCandles answers the market rates page from the cache. The prices are public and the
// same for everyone, so browsers and shared caches may keep them for a minute (the cache behind
// them changes every 15 minutes at most).
func (s *server) GetMarketCandles(ctx context.Context, req apigen.GetMarketCandlesRequestObject) (apigen.GetMarketCandlesResponseObject, error) {
	if s.market == nil {
		return nil, errMarketUnavailable
	}
	interval := "1d"
	if req.Params.Interval != nil {
		interval = string(*req.Params.Interval)
	}
	v, err := s.market.Candles(ctx, string(req.Params.Symbol), interval)
	if err != nil {
		return nil, err
	}
	out := apigen.GetMarketCandles200JSONResponse{
		Symbol: apigen.MarketCandlesSymbol(v.Symbol), Interval: apigen.MarketCandlesInterval(v.Interval),
		Status: apigen.MarketCandlesStatus(v.Status), Source: v.Source, ReferenceRate: v.ReferenceRate,
		Candles: make([]apigen.MarketCandle, len(v.Candles)),
	}
	if !v.AsOf.IsZero() {
		out.AsOf = &v.AsOf
	}
	for i, c := range v.Candles {
		out.Candles[i] = apigen.MarketCandle{Time: openapi_types.Date{Time: c.Day}, Open: c.Open, High: c.High, Low: c.Low, Close: c.Close}
	}
	if w := exchangeFrom(ctx).w; w != nil {
		w.Header().Set("Cache-Control", "public, max-age=60")
	}
	return out, nil
}
