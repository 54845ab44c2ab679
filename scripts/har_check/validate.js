// The HAR schema check of scripts/har-check.sh: each file named validated with
// har-validator (the HAR 1.2 JSON schemas); exits 1 when one is not valid.
const validate = require('har-validator');
const fs = require('fs');
let failed = 0;
(async () => {
  for (const file of process.argv.slice(2)) {
    const har = JSON.parse(fs.readFileSync(file, 'utf8'));
    try {
      await validate.har(har);
      console.log(`valid: ${file} (${har.log.entries.length} entries)`);
    } catch (e) {
      failed++;
      console.log(`INVALID: ${file}: ${JSON.stringify(e.errors || e.message)}`);
    }
  }
  process.exit(failed ? 1 : 0);
})();
