/**
 * The demo data: labelled card transactions and their accounts, generated
 * from a seed. Only 32-bit integer arithmetic and one division per amount, so
 * the same seed gives the same bytes on every platform and Node version
 * (Math.log/exp are not guaranteed to round alike everywhere).
 */

export interface DemoAccount {
  account_id: string;
  name: string;
  country: string;
  opened: string;
  risk_score: number;
}

export interface DemoTransaction {
  id: number;
  ts: string;
  account_id: string;
  merchant: string;
  category: string;
  country: string;
  amount: number;
  currency: string;
  channel: string;
  label: 'fraud' | 'genuine';
  note: string | null;
}

/** sfc32: a small, fast generator with a 128-bit state; deterministic from the seed. */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed | 0;
    for (let index = 0; index < 15; index += 1) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, bound). */
  below(bound: number): number {
    return this.nextUint32() % bound;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }

  /** True with probability perMille / 1000. */
  chance(perMille: number): boolean {
    return this.below(1000) < perMille;
  }
}

const countries = ['DE', 'DE', 'DE', 'FR', 'FR', 'NL', 'NL', 'GB', 'GB', 'ES', 'IT', 'IT', 'PL', 'SE', 'US', 'BE', 'AT', 'PT', 'IE', 'DK'] as const;
const currencyOf: Record<string, string> = { GB: 'GBP', US: 'USD', PL: 'PLN', SE: 'SEK', DK: 'DKK' };
const firstNames = [
  'Anna',
  'Ben',
  'Chloé',
  'David',
  'Elif',
  'Farid',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Karin',
  'Luca',
  'Maja',
  'Noah',
  'Olga',
  'Pieter',
  'Quentin',
  'Rosa',
  'Sven',
  'Tomasz',
  'Una',
  'Victor',
  'Wiebke',
  'Yusuf',
  'Zoë',
];
const lastNames = [
  'Andersen',
  'Bakker',
  'Costa',
  'Dubois',
  'Eriksson',
  'Fischer',
  'García',
  'Horvat',
  'Ivanova',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Novak',
  "O'Brien",
  'Peeters',
  'Rossi',
  'Schmidt',
  'Torres',
  'Visser',
  'Weber',
  'Zieliński',
];

/** Merchant, category and the amount range in cents a purchase there usually falls in. */
const merchants: readonly (readonly [string, string, number, number])[] = [
  ['Rewe', 'groceries', 300, 12_000],
  ['Lidl', 'groceries', 200, 9_000],
  ['Albert Heijn', 'groceries', 250, 10_000],
  ['Carrefour', 'groceries', 300, 15_000],
  ['Tesco', 'groceries', 200, 11_000],
  ['Shell', 'fuel', 1_500, 11_000],
  ['Aral', 'fuel', 1_500, 10_000],
  ['Deutsche Bahn', 'travel', 900, 25_000],
  ['Ryanair', 'travel', 2_500, 40_000],
  ['Lufthansa', 'travel', 8_000, 120_000],
  ['Booking.com', 'travel', 6_000, 90_000],
  ['Uber', 'transport', 500, 6_000],
  ['Bolt', 'transport', 400, 4_500],
  ['Amazon', 'online retail', 500, 60_000],
  ['Zalando', 'online retail', 2_000, 30_000],
  ['bol.com', 'online retail', 700, 25_000],
  ['MediaMarkt', 'electronics', 1_500, 180_000],
  ['Apple Store', 'electronics', 2_900, 250_000],
  ['IKEA', 'home', 500, 80_000],
  ['Spotify', 'subscriptions', 999, 1_799],
  ['Netflix', 'subscriptions', 799, 1_999],
  ['Starbucks', 'restaurants', 250, 2_500],
  ['Vapiano', 'restaurants', 1_200, 9_000],
  ['Wolt', 'restaurants', 1_500, 6_000],
  ['Steam', 'gaming', 499, 8_000],
  ['Apotheke am Markt', 'pharmacy', 300, 6_000],
  ['Gift Card Hub', 'gift cards', 2_500, 50_000],
  ['CryptoNow', 'crypto exchange', 5_000, 300_000],
  ['Cash Machine', 'cash', 2_000, 50_000],
  ['Western Union', 'money transfer', 5_000, 200_000],
];
/** Merchants fraudsters favour. */
const fraudMerchants = merchants.filter(([, category]) =>
  ['gift cards', 'crypto exchange', 'electronics', 'money transfer', 'online retail'].includes(category),
);
const channels = ['chip', 'chip', 'contactless', 'contactless', 'contactless', 'online', 'online', 'atm'] as const;
const genuineNotes = [
  'recurring',
  'split with a friend',
  'refund requested',
  'business expense',
  'birthday present',
  'monthly plan',
  'paid in two parts',
  'receipt kept',
  'disputed, then resolved',
  'tip included',
];
const fraudNotes = ['card not present', 'customer did not recognise', 'chargeback filed', 'velocity alert', 'new device', 'shipping address changed'];
/** Notes that a spreadsheet would take for a formula if written unescaped (about 1% of rows). */
const formulaNotes = [
  '=HYPERLINK("http://example.invalid","refund")',
  '+31 20 555 0134 called back',
  '-15.00 adjustment pending',
  '@support please review',
  '=1+1',
  '+ verified by phone',
  '-- see ticket 4471',
  '@risk-team escalate',
];

/** Accounts for a given number of transactions: one per 25, at least 50. */
export function demoAccountCount(transactions: number): number {
  return Math.max(50, Math.round(transactions / 25));
}

export function generateAccounts(random: SeededRandom, count: number): DemoAccount[] {
  const accounts: DemoAccount[] = [];
  for (let index = 1; index <= count; index += 1) {
    const year = random.between(2009, 2025);
    const month = random.between(1, 12);
    const day = random.between(1, 28);
    // Most accounts are low risk; a tail is high.
    const risk = random.chance(100) ? random.between(60, 99) : random.between(1, 59);
    accounts.push({
      account_id: `AC${String(index).padStart(6, '0')}`,
      name: `${random.pick(firstNames)} ${random.pick(lastNames)}`,
      country: random.pick(countries),
      opened: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      risk_score: risk,
    });
  }
  return accounts;
}

/** Start of the demo period; transactions run forward from here over about 180 days. */
const periodStartMs = Date.UTC(2026, 0, 1);
const periodSeconds = 180 * 24 * 3600;

/** Generates the transactions in id order (and time order), one at a time. */
export function* generateTransactions(random: SeededRandom, accounts: readonly DemoAccount[], count: number): Generator<DemoTransaction> {
  const meanGap = Math.max(1, Math.floor(periodSeconds / count));
  let seconds = 0;
  for (let id = 1; id <= count; id += 1) {
    seconds += random.between(1, 2 * meanGap - 1);
    const account = random.pick(accounts);
    const channel = random.pick(channels);
    const foreign = random.chance(80);
    const country = foreign ? random.pick(countries) : account.country;
    // Fraud odds rise with the account's risk, card-not-present channels and foreign use.
    let fraudPerMille = 2 + Math.floor(account.risk_score / 6);
    if (channel === 'online') fraudPerMille += 17;
    if (country !== account.country) fraudPerMille += 20;
    const fraud = random.chance(fraudPerMille);
    const [merchant, category, minCents, maxCents] = fraud && random.chance(700) ? random.pick(fraudMerchants) : random.pick(merchants);
    // Skewed towards small amounts: the product of two uniform draws.
    const spread = maxCents - minCents;
    const draw = random.below(1001) * random.below(1001);
    let cents = minCents + Math.floor((spread * draw) / 1_000_000);
    if (fraud && random.chance(400)) cents = Math.min(maxCents * 2, cents * 3);
    const noteRoll = random.below(1000);
    const note = noteRoll < 10 ? random.pick(formulaNotes) : noteRoll < 300 ? random.pick(fraud && random.chance(600) ? fraudNotes : genuineNotes) : null;
    yield {
      id,
      ts: new Date(periodStartMs + seconds * 1000).toISOString().replace('.000Z', 'Z'),
      account_id: account.account_id,
      merchant,
      category,
      country,
      amount: cents / 100,
      currency: currencyOf[country] ?? 'EUR',
      channel,
      label: fraud ? 'fraud' : 'genuine',
      note,
    };
  }
}
