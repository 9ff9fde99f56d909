#!/bin/bash
# shellcheck shell=bash
# Phase of the in-guest suite (sourced by suite.sh): drop the RDMA listener,
# unload, dkms remove, and show the stock rpcrdma loads and mounts again.

