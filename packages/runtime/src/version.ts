/** rocelab's version, exported as `rocelab_build_info{version}`. */
export const VERSION = '0.1.0';
