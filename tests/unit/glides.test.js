// Glides: a character or the camera moves to its new place over at most 400 ms, and no longer than
// it stood at its old place (a first look replaced a moment later is left as quickly).
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { Glides } from '../../web/src/three/glides.js';

const at = (x) => new THREE.Vector3(x, 0, 0);

/** How long a glide 10 units on from where `v` stands, begun at `start`, is under way (in 10 ms steps). */
function glide(glides, v, start) {
  glides.to(v, at(v.x + 10), start);
  const times = [];
  for (let t = start; glides.step(t); t += 10) times.push(t);
  return times.length * 10;
}

describe('Glides', () => {
  it('takes 400 ms from a place that stood long, or that was never noted as placed', () => {
    const glides = new Glides();
    const noted = at(0);
    glides.placed(noted, 0);
    expect(glide(glides, noted, 5000)).toBe(400);
    expect(glide(glides, at(0), 5000)).toBe(400);
  });

  it('takes no longer than the old place was shown, eased from start to end', () => {
    const glides = new Glides();
    const v = at(0);
    glides.placed(v, 1000);
    glides.to(v, at(10), 1120);
    glides.step(1180);
    expect(v.x).toBeCloseTo(5, 6); // halfway in time, halfway on the smoothstep
    expect(glides.step(1240)).toBe(false);
    expect(v.x).toBe(10);
  });

  it('moves at once when the old place was shown no time at all, and notes the new one', () => {
    const glides = new Glides();
    const v = at(0);
    glides.placed(v, 300);
    glides.to(v, at(10), 300);
    expect(glides.active).toBe(false);
    expect(v.x).toBe(10);
    // It stands there from now: a glide 150 ms later takes 150 ms.
    expect(glide(glides, v, 450)).toBe(150);
  });

  it('an arrival counts as a placing; a glide turned mid-way takes the whole 400 ms', () => {
    const glides = new Glides();
    const v = at(0);
    glides.placed(v, 0);
    glides.to(v, at(10), 100);
    glides.step(150);
    glides.to(v, at(20), 150);
    glides.step(350);
    expect(glides.active).toBe(true);
    expect(glides.step(550)).toBe(false);
    expect(v.x).toBe(20);
    glides.to(v, at(30), 600); // arrived at 550: stood there 50 ms
    expect(glides.step(649)).toBe(true);
    expect(glides.step(650)).toBe(false);
    glides.to(v, at(40), 700);
    glides.finish(700);
    expect(v.x).toBe(40);
    glides.to(v, at(50), 710);
    expect(glides.step(719)).toBe(true);
    expect(glides.step(720)).toBe(false);
  });
});
