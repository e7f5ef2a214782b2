/**
 * The directory read model's schema: its projection name (what a directory import waits for) and its
 * tables, read by the directory and catalog queries.
 */

export const DIRECTORY_PROJECTION = 'directory';

export const DIR = {
  groups: 'dir_carrier_groups',
  carriers: 'dir_carriers',
  mgas: 'dir_mgas',
  products: 'dir_products',
  availability: 'dir_product_availability',
} as const;
