export {
  NETNS_RUN_DIR,
  InvalidNetnsNameError,
  validateNetnsName,
  netnsPath,
  netnsAdd,
  netnsDel,
  netnsList,
  runInNetns,
} from './netns.js';
