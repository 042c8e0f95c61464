// A local Ethereum node (anvil) as the chain-deposit browser test drives it: deploy the
// six-decimal test token from the first development account, send tokens, mine blocks. Plain
// JSON-RPC: anvil's development accounts are unlocked, so eth_sendTransaction signs for them.
//
//   node e2e/chain/node.mjs deploy <rpc-url>   prints the token's address
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function rpc(rpcURL, method, params = []) {
  const res = await fetch(rpcURL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function from(rpcURL) {
  const [first] = await rpc(rpcURL, 'eth_accounts');
  return first;
}

export async function mine(rpcURL, blocks = 1) {
  for (let i = 0; i < blocks; i++) await rpc(rpcURL, 'evm_mine');
}

const word = (hex) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');

// deployToken deploys the test token with a million tokens minted to the first account and mines
// the block that holds it.
export async function deployToken(rpcURL) {
  const artifact = JSON.parse(execFileSync('node', [join(root, 'scripts', 'chain', 'compile.mjs'),
    join(root, 'platform', 'chain', 'ethereum', 'anviltest', 'testdata', 'TestToken.sol'), 'TestToken'], { encoding: 'utf8' }));
  const supply = word((1_000_000_000_000n).toString(16));
  const hash = await rpc(rpcURL, 'eth_sendTransaction', [{ from: await from(rpcURL), data: artifact.bytecode + supply, gas: '0x2dc6c0' }]);
  await mine(rpcURL);
  const receipt = await rpc(rpcURL, 'eth_getTransactionReceipt', [hash]);
  if (!receipt || receipt.status !== '0x1') throw new Error(`the token's deployment ${hash} failed`);
  return receipt.contractAddress;
}

// sendToken transfers units (10^-6 token) to an address; the transfer waits for the next block.
export async function sendToken(rpcURL, token, to, units) {
  const data = `0xa9059cbb${word(to)}${word(BigInt(units).toString(16))}`;
  return rpc(rpcURL, 'eth_sendTransaction', [{ from: await from(rpcURL), to: token, data, gas: '0x186a0' }]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cmd, rpcURL] = process.argv.slice(2);
  if (cmd !== 'deploy' || !rpcURL) {
    console.error('usage: node e2e/chain/node.mjs deploy <rpc-url>');
    process.exit(2);
  }
  console.log(await deployToken(rpcURL));
}
