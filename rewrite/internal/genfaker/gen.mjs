// Writes rewrite/testdata/faker_{develop,holdout}.cases.jsonl: phone numbers
// from @faker-js/faker (MIT; pinned at 10.6.0, fetched from the npm
// registry at development time only) for each of its locales and styles,
// in sentences with a phone word or with none. A third generator beside
// gencases and genexamples: Faker draws digits within each locale's
// patterns, so many numbers are not ones libphonenumber calls valid.
//
//   cd /tmp && npm install @faker-js/faker@10.6.0
//   NODE_PATH=/tmp/node_modules node rewrite/internal/genfaker/gen.mjs rewrite/testdata
//
// It also writes faker_negatives.cases.jsonl: 60 values of each of
// Faker's generators of things that are no personal data (hashes, UUIDs,
// dates, amounts, account and routing numbers, versions, MACs, ZIP codes,
// coordinates, addresses, VINs, IMEIs, ISBNs, user agents, …), all tagged
// hard-negative; a develop set (it was read while the detectors changed).
//
// Fixed seeds: a rerun writes the same files. The develop half was drawn
// with seed 42, the holdout half with seed 7; a value drawn for both is
// kept in the develop half only.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { allFakers, faker } = require('@faker-js/faker');

const cue = ['Call me at %s', 'phone: %s', 'Tel. %s', 'mobile %s', 'You can reach her on %s.', 'Telefon: %s', '{"phone":"%s"}', 'fax %s'];
const plain = ['%s', 'Noted: %s (see ticket).', 'I wrote down %s yesterday.', '{"data":{"v":"%s"}}', '| Jane | %s | yes |', 'name,%s,2024'];

// A small deterministic generator (mulberry32) for the sentence choices.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draw(seed, perLocale, seen, prefix) {
  const r = rng(seed);
  const out = [];
  const locales = Object.keys(allFakers).filter((k) => k !== 'base').sort();
  for (const loc of locales) {
    const f = allFakers[loc];
    f.seed(seed);
    for (let i = 0; i < perLocale; i++) {
      for (const style of ['human', 'national', 'international']) {
        let v;
        try {
          v = f.phone.number({ style });
        } catch {
          continue;
        }
        if (!v || seen.has(v)) continue;
        seen.add(v);
        const bare = r() < 0.25;
        const ts = bare ? plain : cue;
        const t = ts[Math.floor(r() * ts.length)];
        out.push({
          id: `${prefix}-${String(out.length + 1).padStart(5, '0')}`,
          text: t.replace('%s', v),
          spans: [{ type: 'PHONE', value: v }],
          tags: [`phone-${style}${bare ? '-bare' : ''}`, `locale-${loc}`, 'positive'],
        });
      }
    }
  }
  return out;
}

const dir = process.argv[2] || 'rewrite/testdata';
const seen = new Set();
const dev = draw(42, 10, seen, 'fk-dev');
const hold = draw(7, 10, seen, 'fk-hold');
const lines = (cs) => cs.map((c) => JSON.stringify(c)).join('\n') + '\n';
writeFileSync(join(dir, 'faker_develop.cases.jsonl'), lines(dev));
writeFileSync(join(dir, 'faker_holdout.cases.jsonl'), lines(hold));

function negatives() {
  faker.seed(11);
  faker.setDefaultRefDate('2026-01-01T00:00:00Z');
  const gens = {
    'git.commitSha': () => faker.git.commitSha(), 'string.uuid': () => faker.string.uuid(),
    'date.iso': () => faker.date.past().toISOString(), 'date.string': () => faker.date.past().toString(),
    'finance.amount': () => faker.finance.amount({ min: 1000, max: 10000000 }), 'finance.accountNumber': () => faker.finance.accountNumber(),
    'finance.routingNumber': () => faker.finance.routingNumber(), 'finance.bic': () => faker.finance.bic(),
    'finance.bitcoinAddress': () => faker.finance.bitcoinAddress(), 'finance.ethereumAddress': () => faker.finance.ethereumAddress(),
    'finance.pin': () => faker.finance.pin(), 'string.numeric8': () => faker.string.numeric(8), 'string.numeric10': () => faker.string.numeric(10),
    'string.numeric12': () => faker.string.numeric(12), 'system.semver': () => faker.system.semver(), 'internet.mac': () => faker.internet.mac(),
    'location.zipCode': () => faker.location.zipCode(), 'location.zipCode+4': () => faker.location.zipCode('#####-####'),
    'location.latlon': () => faker.location.latitude() + ', ' + faker.location.longitude(),
    'location.streetAddress': () => faker.location.streetAddress(true), 'airline.flightNumber': () => faker.airline.flightNumber(),
    'airline.recordLocator': () => faker.airline.recordLocator(), 'vehicle.vin': () => faker.vehicle.vin(), 'vehicle.vrm': () => faker.vehicle.vrm(),
    'phone.imei': () => faker.phone.imei(), 'commerce.isbn': () => faker.commerce.isbn(), 'commerce.isbn10': () => faker.commerce.isbn(10),
    'commerce.price': () => faker.commerce.price(), 'internet.password': () => faker.internet.password(), 'string.alphanumeric32': () => faker.string.alphanumeric(32),
    'string.hexadecimal': () => faker.string.hexadecimal({ length: 40 }), 'internet.url': () => faker.internet.url(), 'internet.port': () => String(faker.internet.port()),
    'system.filePath': () => faker.system.filePath(), 'date.time': () => faker.date.past().toLocaleTimeString('de-DE'),
    'date.de': () => faker.date.past().toLocaleDateString('de-DE'), 'date.fr': () => faker.date.past().toLocaleString('fr-FR'),
    'number.int': () => String(faker.number.int({ max: 1e12 })),
    'finance.creditCardCVV': () => faker.finance.creditCardCVV(), 'string.nanoid': () => faker.string.nanoid(), 'database.mongodbObjectId': () => faker.database.mongodbObjectId(),
    'string.ulid': () => faker.string.ulid(), 'internet.emoji': () => faker.internet.emoji(), 'lorem.sentence': () => faker.lorem.sentence(),
    'location.buildingNumber+street': () => faker.location.buildingNumber() + ' ' + faker.location.street(), 'company.catchPhrase': () => faker.company.catchPhrase(),
    'internet.userAgent': () => faker.internet.userAgent(), 'color.rgb': () => faker.color.rgb(), 'system.cron': () => faker.system.cron(),
    'date.unix': () => String(Math.floor(faker.date.past().getTime() / 1000)), 'date.ms': () => String(faker.date.past().getTime()),
  };
  const tmpl = ['%s', 'value: %s', 'I wrote down %s yesterday.', '{"v":"%s"}', 'order %s', 'id=%s'];
  const out = [];
  for (const [k, g] of Object.entries(gens)) {
    for (let i = 0; i < 60; i++) {
      out.push({ id: `fk-neg-${String(out.length + 1).padStart(5, '0')}`, text: tmpl[i % tmpl.length].replace('%s', g()), spans: [], tags: ['hard-negative', `faker-${k}`] });
    }
  }
  return out;
}
writeFileSync(join(dir, 'faker_negatives.cases.jsonl'), lines(negatives()));
console.log(`develop ${dev.length}, holdout ${hold.length}`);
