import net from "node:net";

// The unit tier opens no socket: a test that listens or connects belongs to the integration tier.
const refuse = (what: string) => () => {
  throw new Error(`unit tests open no sockets (${what}): move this test to test/integration`);
};
net.Server.prototype.listen = refuse("listen");
net.Socket.prototype.connect = refuse("connect");
