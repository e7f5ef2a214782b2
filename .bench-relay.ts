import { scenario } from './bench/scenarios/kafka-relay';
scenario.run({ quick: process.argv[2] === 'quick', log: (m) => console.error(m) }).then((r) => console.log(JSON.stringify(r, null, 1)));
