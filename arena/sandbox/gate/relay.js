// The inside end of the fetch gate for npm (see relay.py): runs in the fetch step's sandbox.
// Usage: node relay.js GATE_SOCKET -- COMMAND ...
'use strict';
const net = require('net');
const os = require('os');
const { spawn } = require('child_process');

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'PIP_PROXY',
  'npm_config_proxy', 'npm_config_https_proxy'];
const NO_PROXY_VARIABLES = ['NO_PROXY', 'no_proxy', 'npm_config_noproxy', 'ALL_PROXY', 'all_proxy'];

const [gate, dashes, ...command] = process.argv.slice(2);
if (!gate || dashes !== '--' || command.length === 0) {
  process.stderr.write('usage: relay.js GATE_SOCKET -- COMMAND ...\n');
  process.exit(2);
}

const server = net.createServer((client) => {
  const upstream = net.connect(gate);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});

server.listen(0, '127.0.0.1', () => {
  const proxy = `http://127.0.0.1:${server.address().port}`;
  const env = { ...process.env };
  for (const name of PROXY_VARIABLES) env[name] = proxy;
  for (const name of NO_PROXY_VARIABLES) env[name] = '';
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
  child.on('error', (err) => {
    process.stderr.write(`cannot run ${command[0]}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code !== null ? code : 128 + (os.constants.signals[signal] || 0));
  });
});
