package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"clearvest/api"
	"clearvest/app/chainaddr"
	"clearvest/app/chainwatch"
	appmarket "clearvest/app/marketdata"
	"clearvest/domain/clock"
	"clearvest/domain/payout"
	"clearvest/platform/chain/bitcoin"
	"clearvest/platform/chain/ethereum"
	"clearvest/platform/config"
)

// chainWatch is what serve runs for the configured chains: the watcher (nil when no node is
// configured) and the sources to close at the end.
type chainWatch struct {
	watcher *chainwatch.Watcher
	close   func()
}

// newChainAddresses is the service that gives investors their own deposit addresses on the
// watched networks; nil when no network is watched.
func newChainAddresses(cfg config.Chain, ident identityParts, clk clock.Clock) (*chainaddr.Service, error) {
	derivers := map[payout.Network]chainaddr.Deriver{}
	if cfg.BitcoinKey != nil {
		derivers[payout.Bitcoin] = cfg.BitcoinKey
	}
	if cfg.EthereumKey != nil {
		derivers[payout.Ethereum] = cfg.EthereumKey
	}
	if len(derivers) == 0 {
		return nil, nil
	}
	return chainaddr.New(chainaddr.Deps{Pool: ident.pool, Commands: ident.commands, Clock: clk, Derivers: derivers})
}

// newChainWatch builds one watcher job per configured node (docs/chain.md). With no
// CLEARVEST_CHAIN_*_RPC_URL set it returns no watcher and the product works on declared
// deposits only. owners answers whose addresses a block pays (config.LoadChain has made sure
// every watched network has its key, so owners is set whenever a node is).
func newChainWatch(ctx context.Context, cfg config.Chain, ident identityParts, owners *chainaddr.Service, market *appmarket.Service,
	clk clock.Clock, reg prometheus.Registerer, logger *slog.Logger) (chainWatch, error) {
	var sources []chainwatch.Source
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	if cfg.Bitcoin.Enabled() {
		src, err := bitcoin.New(bitcoin.Config{Host: cfg.Bitcoin.Host, User: cfg.Bitcoin.User, Password: cfg.Bitcoin.Password,
			TLS: cfg.Bitcoin.TLS, Network: cfg.Bitcoin.Network})
		if err != nil {
			return chainWatch{}, fmt.Errorf("%s: %w", config.EnvChainBTCRPCURL, err)
		}
		sources = append(sources, src)
		closers = append(closers, src.Close)
		logger.Info("watching a Bitcoin node for deposits", "node", cfg.Bitcoin)
	}
	if cfg.Ethereum.RPCURL != "" {
		src, err := ethereum.Dial(ctx, ethereum.Config{RPCURL: cfg.Ethereum.RPCURL, Token: cfg.Ethereum.Token, TokenDecimals: cfg.Ethereum.TokenDecimals})
		if err != nil {
			closeAll()
			return chainWatch{}, fmt.Errorf("%s: %w", config.EnvChainEthRPCURL, err)
		}
		sources = append(sources, src)
		closers = append(closers, src.Close)
		logger.Info("watching an Ethereum node for deposits", "token", cfg.Ethereum.Token)
	}
	if len(sources) == 0 || owners == nil {
		closeAll()
		return chainWatch{close: func() {}}, nil
	}
	networks := map[payout.Network]chainwatch.Network{}
	for n, c := range cfg.Networks {
		networks[n] = chainwatch.Network{Confirmations: c.Confirmations, StartHeight: c.StartHeight}
	}
	w, err := chainwatch.New(chainwatch.Config{Networks: networks, Every: 5 * time.Second}, chainwatch.Deps{
		Pool: ident.pool, Commands: ident.commands, Money: ident.money, Sources: sources, Owners: owners,
		Rates: chainwatch.MarketRates{Market: market, Now: clk.Now}, Clock: clk, Logger: logger,
	})
	if err != nil {
		closeAll()
		return chainWatch{}, err
	}
	if err := w.Register(reg); err != nil {
		closeAll()
		return chainWatch{}, err
	}
	return chainWatch{watcher: w, close: closeAll}, nil
}

// status is what the staff dashboard reads; nil when no chain is watched. A nil *Watcher must
// not become a non-nil interface.
func (c chainWatch) status() api.ChainStatus {
	if c.watcher == nil {
		return nil
	}
	return c.watcher
}

// chainConfirmations are what the watcher waits for per network, as investors are told.
func chainConfirmations(cfg config.Chain) map[payout.Network]uint64 {
	out := map[payout.Network]uint64{}
	for n, c := range cfg.Networks {
		out[n] = c.Confirmations
	}
	return out
}
