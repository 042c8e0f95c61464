#!/usr/bin/env node
// Compiles one Solidity file with solc-js and prints {"abi": [...], "bytecode": "0x..."} of the
// contract named on the command line, for the chain tests (platform/chain/ethereum/anviltest).
//
//   node scripts/chain/compile.mjs <file.sol> <ContractName>
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import solc from 'solc'

const [file, contract] = process.argv.slice(2)
if (!file || !contract) {
  console.error('usage: compile.mjs <file.sol> <ContractName>')
  process.exit(2)
}
const source = basename(file)
const input = {
  language: 'Solidity',
  sources: { [source]: { content: readFileSync(file, 'utf8') } },
  settings: {
    // Paris: no PUSH0 or later opcodes, so any node's default hard fork runs it.
    evmVersion: 'paris',
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
}
const output = JSON.parse(solc.compile(JSON.stringify(input)))
const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
if (errors.length > 0) {
  for (const e of errors) console.error(e.formattedMessage)
  process.exit(1)
}
const compiled = output.contracts?.[source]?.[contract]
if (!compiled) {
  console.error(`${contract} not found in ${file}`)
  process.exit(1)
}
process.stdout.write(JSON.stringify({ abi: compiled.abi, bytecode: '0x' + compiled.evm.bytecode.object }))
