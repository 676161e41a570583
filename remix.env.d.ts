/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Single Fetch changes what useLoaderData infers; this tells the types the flag is on.
declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

export {};
