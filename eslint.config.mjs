import { config } from '@n8n/node-cli/eslint';

// n8n's community-node rules exactly as `n8n-node lint` applies them. `npm run lint`
// points them at what the package ships: nodes/, credentials/ and package.json.
export default config;
