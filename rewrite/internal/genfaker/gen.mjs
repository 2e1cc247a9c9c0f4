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
// Fixed seeds: a rerun writes the same files. The develop half was drawn
// with seed 42, the holdout half with seed 7; a value drawn for both is
// kept in the develop half only.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { allFakers } = require('@faker-js/faker');

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
console.log(`develop ${dev.length}, holdout ${hold.length}`);
