/** Cline facts shared by the core's hub tap and the installer's doctor (one place for each). */

/** The Cline user folder: `<home>/.cline`. */
export const clineHome = (home: string): string => `${home.replace(/\/+$/, '')}/.cline`;

/** The hub discovery file the Cline CLI writes (mode 0600): `<home>/.cline/data/locks/hub/production.json`. */
export const clineHubDiscoveryPath = (home: string): string =>
  `${clineHome(home)}/data/locks/hub/production.json`;
