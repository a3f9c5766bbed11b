// globals.js must be evaluated before anything that reaches the @ledgerhq transports.
import './globals.js';
import { start } from './app.js';

start();
