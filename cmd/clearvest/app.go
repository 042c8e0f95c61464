package main

import (
	appbroadcast "clearvest/app/broadcast"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"

	"clearvest/domain/clock"
	"clearvest/domain/settings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/app/accounts"
	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/app/community"
	"clearvest/app/kyc"
	"clearvest/app/money"
	"clearvest/app/plans"
	"clearvest/app/referrals"
	appsettings "clearvest/app/settings"
	"clearvest/app/support"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/blob"
	"clearvest/platform/config"
	"clearvest/platform/mail"
)

// identityParts is what serve and the account tools share: the codec that seals personal fields,
// the mail outbox sender and the accounts service on top of them, the identity checks and the
// plan catalogue.
type identityParts struct {
	codec    *eventstore.Registry
	cipher   *pii.Cipher
	sender   *mail.Sender
	accounts *accounts.Service
	kyc      *kyc.Service
	plans    *plans.Service
	money    *money.Service
	// approvals runs the four-eyes proposals of money and account decisions.
	approvals *approvals.Service
	// referrals credits referral bonuses (serve runs it as a reactor) and answers the
	// referrals page.
	referrals *referrals.Reactor
	// support runs the contact form and the staff support queue.
	support *support.Service
	// settings are the admins' settings (fees, thresholds, addresses, contact), read live by
	// money and referrals.
	settings *appsettings.Service
	// broadcast runs staff e-mail.
	broadcast *appbroadcast.Service
	// community runs testimonials and answers the public social proof and badges.
	community *community.Service
	// commands is the command runner every service above shares; the chain watchers use it too.
	commands *command.Runner
	pool     *pgxpool.Pool
	store    *postgres.Store
}

// newIdentity wires the identity flows on an open, migrated database. clk is the application's
// clock, which every service reads (serve's development test clock, or the system clock). reg may
// be nil (CLI tools have no /metrics). The sender is returned unstarted: serve runs it; a CLI tool that
// enqueues mail leaves it to the running server (every serve process polls the outbox).
func newIdentity(ctx context.Context, cfg config.Config, clk clock.Clock, pool *pgxpool.Pool, store *postgres.Store, codec *eventstore.Registry, cipher *pii.Cipher, reg prometheus.Registerer, logger *slog.Logger) (identityParts, error) {
	transport, err := mail.Open(cfg.MailURL, senderAddress(cfg.PublicURL))
	if err != nil {
		return identityParts{}, err
	}
	opts := []mail.SenderOption{mail.WithLogger(logger), mail.WithClock(clk)}
	if reg != nil {
		opts = append(opts, mail.WithMetrics(reg))
	}
	sender := mail.NewSender(pool, transport, opts...)
	blobs, err := openBlobs(cfg)
	if err != nil {
		return identityParts{}, err
	}
	commands := newCommands(pool, store, codec, logger)
	// Closing an account deletes its identity documents; the kyc service is built below, on
	// the same runner, before any request can close one.
	var kycService *kyc.Service
	onClosed := func(ctx context.Context, userID string) error {
		return kycService.DeleteClosedAccountFiles(ctx, userID)
	}
	// An account holding money may not close: the money service, built below, checks it.
	var moneyService *money.Service
	closeCheck := func(ctx context.Context, userID string) error {
		return moneyService.CheckClosable(ctx, userID)
	}
	svc, err := accounts.New(accounts.Config{
		PublicURL: cfg.PublicURL, SecretKey: cfg.SecretKey, PreviousSecretKeys: cfg.PreviousSecretKeys, GoogleClientID: cfg.GoogleClientID,
		GoogleClientSecret: cfg.GoogleClientSecret, GoogleIssuer: cfg.GoogleIssuer,
		Production: cfg.Production(),
	}, accounts.Deps{
		Pool: pool, Store: store, Codec: codec, PII: cipher, Sender: sender, Blobs: blobs, Logger: logger,
		Commands: commands, OnClosed: onClosed, CloseCheck: closeCheck, Clock: clk,
	})
	if err != nil {
		return identityParts{}, err
	}
	kycService, err = kyc.New(kyc.Config{PublicURL: cfg.PublicURL}, kyc.Deps{
		Pool: pool, Commands: commands, Files: kycFiles(blobs, cipher), Keys: cipher, Sender: sender, Logger: logger, Clock: clk,
	})
	if err != nil {
		return identityParts{}, err
	}
	planService, err := plans.New(plans.Deps{Pool: pool, Commands: commands, Clock: clk})
	if err != nil {
		return identityParts{}, err
	}
	maxOpen := cfg.Limits.MaxOpenDeposits
	if cfg.Limits.Off {
		maxOpen = -1
	}
	ap := cfg.Approvals
	settingsService, err := appsettings.New(settingsDefaults(cfg), appsettings.Deps{Pool: pool, Store: store, Codec: codec,
		Commands: commands, Clock: clk, Logger: logger, Ceiling: ap.MaxAmount})
	if err != nil {
		return identityParts{}, err
	}
	moneyService, err = money.New(money.Config{PublicURL: cfg.PublicURL, Addresses: depositAddresses(cfg),
		WithdrawalFee: cfg.WithdrawalFee, Thresholds: money.Thresholds{DepositTolerance: ap.DepositTolerance,
			DepositThreshold: ap.DepositThreshold, WithdrawalThreshold: ap.WithdrawalThreshold, MaxAmount: ap.MaxAmount,
			CorrectionThreshold: ap.CorrectionThreshold},
		MaxOpenDeposits: maxOpen, MinDeposit: cfg.MinDeposit}, money.Deps{
		Pool: pool, Commands: commands, Sender: sender, Logger: logger, Clock: clk, Plans: planService, Settings: settingsService,
	})
	if err != nil {
		return identityParts{}, err
	}
	approvalService, err := approvals.New(approvals.Deps{Pool: pool, Commands: commands, Clock: clk, Logger: logger})
	if err != nil {
		return identityParts{}, err
	}
	moneyService.RegisterExecutors(approvalService)
	svc.RegisterExecutors(approvalService)
	referralService, err := referrals.New(referrals.Config{Bonus: cfg.ReferralBonus, MinDeposit: cfg.Limits.ReferralMinDeposit, PublicURL: cfg.PublicURL}, referrals.Deps{
		Pool: pool, Store: store, Commands: commands, Sender: sender, Clock: clk, Logger: logger, Settings: settingsService,
	})
	if err != nil {
		return identityParts{}, err
	}
	supportService, err := support.New(support.Config{PublicURL: cfg.PublicURL}, support.Deps{
		Pool: pool, Commands: commands, Sender: sender, Clock: clk, Logger: logger,
	})
	if err != nil {
		return identityParts{}, err
	}
	broadcastService, err := appbroadcast.New(appbroadcast.Config{PublicURL: cfg.PublicURL}, appbroadcast.Deps{
		Pool: pool, Commands: commands, Sender: sender, Clock: clk, Logger: logger, Automated: svc,
	})
	if err != nil {
		return identityParts{}, err
	}
	communityService, err := community.New(community.Config{Levels: cfg.Community.Levels, MinInvestors: cfg.Community.MinInvestors,
		MinCountries: cfg.Community.MinCountries}, community.Deps{Pool: pool, Commands: commands, Clock: clk, Logger: logger})
	if err != nil {
		return identityParts{}, err
	}
	return identityParts{codec: codec, cipher: cipher, sender: sender, accounts: svc, kyc: kycService, plans: planService,
		money: moneyService, approvals: approvalService, referrals: referralService, support: supportService, settings: settingsService, broadcast: broadcastService, community: communityService, commands: commands, pool: pool, store: store}, nil
}

// depositAddresses are the configured deposit addresses as the money service takes them; in
// development chosen explicitly, with none configured, the published examples (never to be sent
// anything; production refuses them). serve runs development only on a loopback address, and
// `clearvest seed` makes its sample deposit to them.
func depositAddresses(cfg config.Config) []money.Address {
	list := cfg.DepositAddresses
	if len(list) == 0 && cfg.DevelopmentChosen() {
		list, _ = config.ParseDepositAddresses(config.ExampleDepositAddresses) // checked by TestDevDepositAddressesParse
	}
	out := make([]money.Address, 0, len(list))
	for _, d := range list {
		out = append(out, money.Address{Asset: d.Asset, Network: d.Network, Address: d.Address})
	}
	return out
}

// settingsDefaults are the settings in force before an admin changes them: the environment's
// (and, for the support contact, "", which leaves the site content's in force).
func settingsDefaults(cfg config.Config) settings.Values {
	ap := cfg.Approvals
	v := settings.Values{
		WithdrawalFee: settings.FromSchedule(cfg.WithdrawalFee),
		Referral:      settings.Referral{Bonus: cfg.ReferralBonus, MinDeposit: cfg.Limits.ReferralMinDeposit},
		Approvals: settings.Approvals{DepositTolerancePercent: ap.DepositTolerance.Shift(2), DepositThreshold: ap.DepositThreshold,
			WithdrawalThreshold: ap.WithdrawalThreshold},
	}
	for _, d := range depositAddresses(cfg) {
		v.DepositAddresses = append(v.DepositAddresses, settings.Address{Asset: d.Asset, Network: d.Network, Address: d.Address})
	}
	return v
}

// newCommands is the process's one command runner: every service appends through it, so one
// cache holds each stream. Long money streams load from a snapshot.
func newCommands(pool *pgxpool.Pool, store *postgres.Store, codec *eventstore.Registry, logger *slog.Logger) *command.Runner {
	return command.NewRunner(store, codec, command.WithLogger(logger),
		money.Snapshots(money.SnapshotEvery))
}

// openBlobs returns the file store CLEARVEST_BLOB_URL selects. Either way files are served by
// our own handlers, never by a link to the bucket, so access checks and headers stay ours.
func openBlobs(cfg config.Config) (blob.Store, error) {
	if s3 := cfg.BlobS3; s3 != nil {
		return blob.NewS3(blob.S3Config{
			Endpoint: s3.Endpoint, Bucket: s3.Bucket, Region: s3.Region,
			AccessKey: s3.AccessKey, SecretKey: s3.SecretKey,
		})
	}
	return blob.NewDisk(filepath.Join(cfg.DataDir, "blobs"))
}

// senderAddress is the From of every e-mail: no-reply at the public host, so replies and
// bounces go to the operator's domain rather than a made-up one.
func senderAddress(publicURL string) string {
	host := "localhost"
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return fmt.Sprintf("Clearvest <no-reply@%s>", host)
}
