// promptfoo assertion, warm path (opt-in): the same judge as ab_judge.py, run in one long-lived Python
// worker per eval instead of a new Python process per test. Use: type: javascript, value: file://assertions/ab_judge.js
module.exports = require('../reeljudge/warm/client.js').entry(__filename);
