import type { Deposit, Plan } from '../api/enhanced';

// Catalogue entries as GET /api/invest/plans answers them, for the tests that need plans: the
// demo plans' figures (docs/plans.md), so a test reads like the page a visitor sees.

export const basicPlan: Plan = {
  _id: '0191f3c2-0000-7000-8000-000000000001',
  name: 'Basic',
  min: '100.00',
  max: '250.00',
  termDays: 30,
  termRate: '0.0040',
  apr: '4.87',
  version: 1,
  example: { amount: '100.00', return: '0.40', payout: '100.40', maturityDays: 30 },
};

export const elitePlan: Plan = {
  _id: '0191f3c2-0000-7000-8000-000000000004',
  name: 'Elite',
  min: '1500.00',
  max: '5000.00',
  termDays: 180,
  termRate: '0.0390',
  apr: '7.91',
  version: 2,
  example: { amount: '1500.00', return: '58.50', payout: '1558.50', maturityDays: 180 },
};

// A declared USDT deposit on TRON waiting for staff, as GET /api/payments/viewPaymentStatus answers it.
export const pendingDeposit: Deposit = {
  transactionId: 'DEP-7K3Q-9XM2',
  reference: 'DEP-7K3Q-9XM2',
  amount: '100.00',
  asset: 'USDT',
  network: 'TRC20',
  address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  qrPayload: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  onChainAmount: '100.000000',
  usdRate: '1',
  txHash: '0xabc',
  status: 'Pending',
  received: '0.00',
  notes: '',
  requestedAt: '2026-11-23T10:00:00Z',
  source: 'declared',
};
