#!/usr/bin/env python3
"""Writes test/vectors/werkzeug.json: Werkzeug's (Flask's) stored password
formats made with Python's standard library, following
werkzeug/security.py's _hash_internal (Werkzeug cannot be installed here):

    python3 test/vectors/make-werkzeug.py

  pbkdf2: hashlib.pbkdf2_hmac(hash_name, password.encode(), salt.encode(), iterations).hex()
          -> "pbkdf2:<hash_name>:<iterations>$<salt>$<hex>"
  scrypt: hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=132*n*r*p).hex()
          (dklen: hashlib's default, 64) -> "scrypt:<n>:<r>:<p>$<salt>$<hex>"
  gen_salt(16): letters and digits.
Werkzeug's tests hold no fixed stored strings of these methods, so every
vector here is made by this recipe.
"""

import hashlib
import json
import os
import secrets
import string

SALT_CHARS = string.ascii_letters + string.digits


def gen_salt(length=16):
    return "".join(secrets.choice(SALT_CHARS) for _ in range(length))


def pbkdf2(password, salt, hash_name, iterations):
    key = hashlib.pbkdf2_hmac(hash_name, password.encode(), salt.encode(), iterations).hex()
    return f"pbkdf2:{hash_name}:{iterations}${salt}${key}"


def scrypt(password, salt, n, r, p):
    key = hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=132 * n * r * p).hex()
    return f"scrypt:{n}:{r}:{p}${salt}${key}"


PASSWORDS = ["default", "", "p\u00e4ssw\u00f6rd \U0001F511", "x" * 200]

vectors = []
for pw in PASSWORDS:
    for hash_name in ["sha1", "sha224", "sha256", "sha384", "sha512"]:
        vectors.append({"password": pw, "hash": pbkdf2(pw, gen_salt(), hash_name, 1000)})
    vectors.append({"password": pw, "hash": scrypt(pw, gen_salt(), 2 ** 10, 8, 1)})
# Werkzeug 3's default scrypt (2^15, 8, 1); other salt lengths and text.
vectors.append({"password": "default", "hash": scrypt("default", gen_salt(), 2 ** 15, 8, 1)})
vectors.append({"password": "default", "hash": scrypt("default", "s\u00e9l", 2 ** 4, 2, 3)})
vectors.append({"password": "default", "hash": pbkdf2("default", gen_salt(8), "sha256", 1)})

out = {
    "description": "Werkzeug stored passwords, made with Python's hashlib following werkzeug/security.py "
                   "(test/vectors/make-werkzeug.py). Every hash verifies with its password only.",
    "vectors": vectors,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "werkzeug.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=2)
    f.write("\n")
