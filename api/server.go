package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"clearvest/domain/clock"
	"clearvest/domain/payout"

	"clearvest/api/apigen"
	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/app/accounts"
	"clearvest/app/approvals"
	appaudit "clearvest/app/audit"
	appbroadcast "clearvest/app/broadcast"
	"clearvest/app/chainaddr"
	appcommunity "clearvest/app/community"
	appkyc "clearvest/app/kyc"
	appmarket "clearvest/app/marketdata"
	appmoney "clearvest/app/money"
	appplans "clearvest/app/plans"
	"clearvest/app/queuefeed"
	appreferrals "clearvest/app/referrals"
	appsettings "clearvest/app/settings"
	appsupport "clearvest/app/support"
	"clearvest/domain/domainerr"
	"clearvest/platform/sitecontent"
)

// server implements the generated strict server interface: one method per operationId in
// openapi.yaml. Handlers return domain errors; httperr turns them into responses.
type server struct {
	meta          apigen.Meta
	accounts      *accounts.Service
	kyc           *appkyc.Service
	plans         *appplans.Service
	money         *appmoney.Service
	approvals     *approvals.Service
	referrals     *appreferrals.Reactor
	market        *appmarket.Service
	content       *sitecontent.Store
	support       *appsupport.Service
	broadcast     *appbroadcast.Service
	community     *appcommunity.Service
	audit         *appaudit.Service
	settings      *appsettings.Service
	queueFeed     *queuefeed.Feed
	chains        ChainStatus
	chainProgress ChainProgress
	chainAddrs    *chainaddr.Service
	// chainConfirmations are the watcher's confirmations per network, told to investors.
	chainConfirmations map[payout.Network]uint64
	waiter             middleware.Waiter // holds a sign-in's answer until its figures are in the read models
	production         bool
	secureCookies      bool
	mailboxDir         string
	devClock           *clock.Offset
	clockMoved         func()
}

var _ apigen.StrictServerInterface = (*server)(nil)

func newServer(deps Deps) *server {
	env := apigen.MetaEnvironmentDevelopment
	if deps.Env == EnvProduction {
		env = apigen.MetaEnvironmentProduction
	}
	return &server{
		meta: apigen.Meta{
			Product:     apigen.MetaProductClearvest,
			Version:     deps.Version,
			Environment: env,
		},
		accounts:           deps.Accounts,
		kyc:                deps.KYC,
		plans:              deps.Plans,
		money:              deps.Money,
		queueFeed:          deps.QueueFeed,
		chains:             deps.Chains,
		chainAddrs:         deps.ChainAddresses,
		chainProgress:      deps.ChainProgress,
		chainConfirmations: deps.ChainConfirmations,
		approvals:          deps.Approvals,
		referrals:          deps.Referrals,
		market:             deps.Market,
		content:            deps.Content,
		support:            deps.Support,
		broadcast:          deps.Broadcast,
		community:          deps.Community,
		audit:              deps.Audit,
		settings:           deps.Settings,
		waiter:             deps.ReadYourWrites,
		production:         deps.Env == EnvProduction,
		// Development runs on plain http://localhost, where a Secure cookie would never be
		// sent back.
		secureCookies: deps.Env == EnvProduction,
		mailboxDir:    deps.MailboxDir,
		devClock:      deps.DevClock,
		clockMoved:    deps.DevClockMoved,
	}
}

func (s *server) GetMeta(context.Context, apigen.GetMetaRequestObject) (apigen.GetMetaResponseObject, error) {
	m := s.meta
	m.GoogleSignIn = s.googleEnabled()
	return apigen.GetMeta200JSONResponse(m), nil
}

// parameterError answers a path, query or header parameter the generated router could not bind,
// naming the parameter so the client can tell which one.
func parameterError(w http.ResponseWriter, r *http.Request, err error) {
	name, message := "", ""
	if e, ok := errors.AsType[*apigen.RequiredParamError](err); ok {
		name, message = e.ParamName, "%s is required."
	} else if e, ok := errors.AsType[*apigen.RequiredHeaderError](err); ok {
		name, message = e.ParamName, "The %s header is required."
	} else if e, ok := errors.AsType[*apigen.InvalidParamFormatError](err); ok {
		name, message = e.ParamName, "%s has an invalid value."
	} else if e, ok := errors.AsType[*apigen.UnmarshalingParamError](err); ok {
		name, message = e.ParamName, "%s has an invalid value."
	} else if e, ok := errors.AsType[*apigen.TooManyValuesForParamError](err); ok {
		name, message = e.ParamName, "%s was given more than once."
	} else if e, ok := errors.AsType[*apigen.UnescapedCookieParamError](err); ok {
		name, message = e.ParamName, "The %s cookie is malformed."
	}
	if name == "" {
		httperr.WriteRequestError(w, r, err)
		return
	}
	httperr.Write(w, r, domainerr.Field(name, fmt.Sprintf(message, name)).Wrap(err))
}
