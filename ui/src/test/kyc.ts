import type { KycCase, KycDocument, MyKyc } from '../api/enhanced';

// Answers of the KYC endpoints for tests.

export function kycDocument(overrides: Partial<KycDocument> = {}): KycDocument {
  const side = overrides.side ?? 'front';
  const submission = overrides.submission ?? 1;
  return {
    side,
    submission,
    contentType: 'image/jpeg',
    size: 123_456,
    sha256: 'ab'.repeat(32),
    url: `/api/users/kyc/user-1/documents/${submission}/${side}`,
    ...overrides,
  };
}

export function myKyc(overrides: Partial<MyKyc> = {}): MyKyc {
  return { kycStatus: 'Not Submitted', submission: 0, documents: [], resubmit: ['front', 'back'], ...overrides };
}

export const rejectedBack: MyKyc = myKyc({
  kycStatus: 'Rejected',
  submission: 1,
  submittedAt: '2026-11-20T10:00:00Z',
  documents: [kycDocument({ side: 'front' }), kycDocument({ side: 'back' })],
  resubmit: ['back'],
  lastDecision: {
    status: 'Rejected',
    at: '2026-11-21T09:00:00Z',
    reviewer: { _id: 'staff-1', name: 'Rita Reviewer' },
    documents: [{ side: 'back', reason: 'glare' }],
    comment: 'The light hides the machine-readable zone.',
  },
});

export function kycCase(overrides: Partial<KycCase> = {}): KycCase {
  return {
    user: {
      _id: 'user-1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+447700900123',
      country: 'GB',
      isVerified: true,
      status: 'active',
      createdAt: '2026-11-01T08:00:00Z',
    },
    kycStatus: 'Pending',
    documents: [kycDocument({ side: 'front', submission: 1 }), kycDocument({ side: 'back', submission: 2, contentType: 'image/heic' })],
    submissions: [
      { submission: 2, submittedAt: '2026-11-22T10:00:00Z', documents: [kycDocument({ side: 'back', submission: 2, contentType: 'image/heic' })] },
      {
        submission: 1,
        submittedAt: '2026-11-20T10:00:00Z',
        documents: [kycDocument({ side: 'front' }), kycDocument({ side: 'back' })],
        decision: {
          status: 'Rejected',
          at: '2026-11-21T09:00:00Z',
          reviewer: { _id: 'staff-1', name: 'Rita Reviewer' },
          documents: [{ side: 'back', reason: 'blurry' }],
          comment: 'Too dark.',
        },
      },
    ],
    asOf: '2026-11-23T10:00:00Z',
    ...overrides,
  };
}
